package org.bitopk.job.problem;

/** Result of evaluating a parameter vector on held-out data; accuracy is null for problems without classes. */
public record Evaluation(double loss, Double accuracy) {}
