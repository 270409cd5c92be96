package org.bitopk.job.engine;

/**
 * What the driver needs to continue a run from a checkpoint (see {@link Trainer#resumeFrom}): the next round
 * t, x_t, the server residual e_s and the counters the metrics continue from.
 */
public record ResumeState(int iteration, float[] masterParameters, float[] serverResidual, long cumulativeUpBytes,
    long cumulativeDownBytes, long lostResiduals) {

  public ResumeState {
    if (iteration < 0) {
      throw new IllegalArgumentException("iteration must be >= 0, got " + iteration);
    }
    if (serverResidual != null && serverResidual.length != masterParameters.length) {
      throw new IllegalArgumentException("server residual has " + serverResidual.length + " entries, model "
          + masterParameters.length);
    }
    masterParameters = masterParameters.clone();
    serverResidual = serverResidual == null ? null : serverResidual.clone();
  }

  /** The state a listener sees at the end of an iteration, as a checkpoint would save it. */
  public static ResumeState of(DriverState state) {
    return new ResumeState(state.iteration(), state.masterParameters(), state.serverResidual(),
        state.cumulativeUpBytes(), state.cumulativeDownBytes(), state.lostResiduals());
  }
}
