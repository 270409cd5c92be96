package org.bitopk.job.engine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JVM-wide registry of executor-side state, keyed by run id (worker residuals, replica pools). Static on
 * purpose: it must outlive the tasks of one iteration and is reached from task code running in any thread of
 * the executor. The driver clears a run's entries at the end with a cleanup job; a run that crashed leaves
 * its state until {@link #forget} or the executor exits.
 */
public final class ExecutorRegistry {
  private static final Map<String, RunState> RUNS = new ConcurrentHashMap<>();

  private ExecutorRegistry() {}

  static RunState run(String runId) {
    return RUNS.computeIfAbsent(runId, id -> new RunState());
  }

  /** Drops everything this JVM holds for the run. */
  public static void forget(String runId) {
    RunState state = RUNS.remove(runId);
    if (state != null) {
      state.close();
    }
  }

  /** Calls {@code action} with every run this JVM holds state of (the executor hands them over as it stops). */
  static void forEachRun(java.util.function.BiConsumer<String, RunState> action) {
    RUNS.forEach(action);
  }

  /** This JVM's replicas of the run (empty if none): lets local-mode tests compare them with the driver. */
  public static List<ReplicaSnapshot> replicas(String runId) {
    RunState state = RUNS.get(runId);
    return state == null ? List.of() : state.replicas();
  }

}
