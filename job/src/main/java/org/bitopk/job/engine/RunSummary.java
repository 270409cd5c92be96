package org.bitopk.job.engine;

/** Totals of a finished run (the one-screen summary is rendered from it). */
public record RunSummary(
    String runId,
    String problem,
    String mode,
    int workers,
    int dimension,
    long iterations,
    int epochs,
    double seconds,
    double finalTrainLoss,
    Double finalTestLoss,
    Double finalTestAccuracy,
    Double finalOptimalityGap,
    long cumulativeUpBytes,
    long cumulativeDownBytes,
    long denseUpBytes,
    long denseDownBytes,
    long lostResiduals,
    long replicaResyncs,
    double medianIterationMs) {}
