package org.bitopk.job.problem;

import org.jspecify.annotations.Nullable;

/** Result of evaluating a parameter vector on held-out data; accuracy is null for problems without classes. */
public record Evaluation(double loss, @Nullable Double accuracy) {}
