package org.bitopk.job.engine;

import java.util.Objects;

/**
 * The server's side of EF21 and Artemis/MCM's uplink memory: g = mean g_i (Artemis: h = mean h_i), kept up to
 * date from the mean of the workers' messages, and the step lr·g the downlink compresses.
 *
 * <pre>
 *   EF21, and Artemis' first round:  g ← g + mean c_i;  step = lr·g
 *   Artemis afterwards:              step = lr·(h + mean c_i);  h ← h + α_up·mean c_i
 * </pre>
 *
 * The workers' side is {@link GradientEstimate}.
 */
final class ServerGradientEstimate implements ServerUplinkMemory {
  private final float[] estimate;
  /** lr·g, the step handed to the downlink; reused from round to round. */
  private final float[] step;
  /** Artemis: g = h + mean c_i is the step's estimate, and h moves by α_up·mean c_i. */
  private final boolean artemis;
  private final float memoryRate;
  /** Whether h holds the workers' first, whole gradients already (Artemis sets h = mean ∇f_i(x⁰) in round 0). */
  private boolean initialised;

  private ServerGradientEstimate(float[] estimate, boolean initialised, UplinkSettings uplink) {
    this.estimate = estimate;
    this.step = new float[estimate.length];
    this.artemis = uplink.feedback() == UplinkFeedback.ARTEMIS;
    this.memoryRate = uplink.memoryRate();
    this.initialised = initialised;
  }

  static ServerGradientEstimate fresh(UplinkSettings uplink, int dimension) {
    return new ServerGradientEstimate(new float[dimension], false, uplink);
  }

  /** Continues from a checkpoint's estimate (copied). */
  static ServerGradientEstimate resume(UplinkSettings uplink, float[] estimate) {
    return new ServerGradientEstimate(Objects.requireNonNull(estimate, "server gradient estimate").clone(), true,
        uplink);
  }

  @Override
  public Step step(float[] mean, int[] union, float learningRate) {
    int dimension = estimate.length;
    int support = 0;
    boolean memoryStep = artemis && initialised;
    if (!memoryStep) {
      // EF21: g ← g + mean c_i, then the step is lr·g, over every coordinate where g is non-zero (Artemis' round 0
      // too: h = mean ∇f_i(x⁰), the whole gradients)
      for (int j : union) {
        estimate[j] = estimate[j] + mean[j];
      }
      for (int j = 0; j < dimension; j++) {
        step[j] = learningRate * estimate[j];
        if (estimate[j] != 0f) {
          support++;
        }
      }
    } else {
      // Artemis/MCM: the step is lr·(h + mean c_i), then h ← h + α_up·mean c_i
      for (int j = 0; j < dimension; j++) {
        step[j] = learningRate * estimate[j];
      }
      for (int j : union) {
        step[j] = learningRate * (estimate[j] + mean[j]);
        estimate[j] = estimate[j] + memoryRate * mean[j];
      }
      for (int j = 0; j < dimension; j++) {
        if (step[j] != 0f) {
          support++;
        }
      }
    }
    initialised = true;
    int[] nonZero = new int[support];
    for (int j = 0, n = 0; n < support; j++) {
      if (memoryStep ? step[j] != 0f : estimate[j] != 0f) {
        nonZero[n++] = j;
      }
    }
    return new Step(step, nonZero);
  }

  @Override
  public float[] estimate() {
    return estimate.clone();
  }
}
