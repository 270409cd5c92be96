package org.bitopk.job.engine;

/**
 * Read-only view of the parameter server's state, for listeners. Getters return copies.
 */
public interface DriverState {
  String runId();

  /** The next round t to run; {@link #masterParameters()} holds x_t. */
  int iteration();

  /** The workers' model x_t, which every replica holds. */
  float[] masterParameters();

  /**
   * The run's model, the one evaluated and written: the workers' model, except for MCM, whose server keeps a central
   * model apart from the workers' perturbed one.
   */
  default float[] modelParameters() {
    return masterParameters();
  }

  /** The server residual e_s (zeros unless bidirectional). */
  float[] serverResidual();

  long seed();

  /** Bytes, lost residuals, resyncs and redone steps so far. */
  RunCounters counters();

  /**
   * Everything needed to continue the run from here, the workers' residuals, momentum and compressor states
   * included: they are collected from the executors by a Spark job. A worker whose state is missing or stale on
   * the executor that runs it comes back with null arrays.
   */
  ResumePoint resumePoint();
}
