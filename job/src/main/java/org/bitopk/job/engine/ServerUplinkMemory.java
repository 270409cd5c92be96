package org.bitopk.job.engine;

import org.jspecify.annotations.Nullable;

/**
 * What the server remembers of the workers' uplinks, the uplink's counterpart of {@link DownlinkStrategy}: given
 * the mean a of the messages the workers sent this round, the step the downlink compresses. With classic error
 * feedback (or none) the workers applied lr already and a is the step; with EF21 or Artemis the server keeps the
 * mean of the workers' gradient estimates and steps with lr times it ({@link ServerGradientEstimate}).
 */
interface ServerUplinkMemory {

  /** The step the downlink compresses: dense, read only at {@code support}. */
  record Step(float[] vector, int[] support) {}

  /**
   * @param mean a = (1/P)·Σ u_i, dense, valid at {@code union}; not modified
   * @param union the coordinates some worker sent, ascending
   * @param learningRate lr of the round
   */
  Step step(float[] mean, int[] union, float learningRate);

  /** EF21's g = mean g_i (Artemis' h = mean h_i), a copy, or null when the server keeps nothing. */
  float @Nullable [] estimate();

  /** EF14 or no feedback: the workers' mean is the step; nothing is kept. */
  ServerUplinkMemory NONE = new ServerUplinkMemory() {
    @Override
    public Step step(float[] mean, int[] union, float learningRate) {
      return new Step(mean, union);
    }

    @Override
    public float @Nullable [] estimate() {
      return null;
    }
  };
}
