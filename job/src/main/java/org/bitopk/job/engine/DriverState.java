package org.bitopk.job.engine;

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
}
