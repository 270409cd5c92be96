package org.bitopk.job.engine;

/**
 * Totals of a finished run (the one-screen summary is rendered from it).
 *
 * @param tasks S, the Spark tasks per round the workers were packed into
 * @param denseUpBytes what dense SGD would have sent up in as many rounds (P·4d per round)
 * @param denseDownBytes what dense SGD would have broadcast (4d per round, one payload)
 * @param pace the rounds' times: median, and how soon the run reached it
 * @param movedWorkers workers placed on another executor during the run, their state moved with them
 * @param roundsToWork per executor that registered during the run and worked, in the order they first worked,
 *     the rounds from its registration to its first round with work ({@link ExecutorArrivals})
 */
public record RunSummary(
    String runId,
    String problem,
    String mode,
    int workers,
    int tasks,
    int dimension,
    long iterations,
    int epochs,
    double seconds,
    double finalTrainLoss,
    Double finalTestLoss,
    Double finalTestAccuracy,
    Double finalOptimalityGap,
    RunCounters counters,
    long denseUpBytes,
    long denseDownBytes,
    SteadyPace pace,
    long movedWorkers,
    java.util.List<Integer> roundsToWork) {

  public RunSummary {
    roundsToWork = java.util.List.copyOf(roundsToWork);
  }

  public double medianIterationMs() {
    return pace.steadyPaceMs();
  }

  public long cumulativeUpBytes() {
    return counters.upBytes();
  }

  public long cumulativeDownBytes() {
    return counters.downBytes();
  }

  public long lostResiduals() {
    return counters.lostResiduals();
  }

  public long replicaResyncs() {
    return counters.replicaResyncs();
  }
}
