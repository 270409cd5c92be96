package org.bitopk.job.engine;

import java.util.List;

/**
 * Read-only view of the parameter server's state, for listeners: what a checkpoint must hold to resume.
 * Getters return copies.
 */
public interface DriverState {
  String runId();

  /** The next round t to run; {@link #masterParameters()} holds x_t. */
  int iteration();

  float[] masterParameters();

  /** The server residual e_s (zeros unless bidirectional). */
  float[] serverResidual();

  long seed();

  long cumulativeUpBytes();

  long cumulativeDownBytes();

  /** Workers whose residual was found missing on an executor (new or restarted executor), so far. */
  long lostResiduals();

  /** Replicas brought back to the model from the dense snapshot (new or lagging executors), so far. */
  long replicaResyncs();

  /** Sum of the losses of the current epoch's rounds so far. */
  double epochLossSum();

  /** Rounds of the current epoch done so far. */
  int epochRounds();

  /**
   * Collects every worker's residual and momentum buffer from the executors (a Spark job). A worker whose
   * state is missing or stale on the executor that runs it comes back with null arrays.
   */
  List<WorkerMemory> collectWorkerMemories();
}
