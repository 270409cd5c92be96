package org.bitopk.job.engine;

import java.io.Serializable;
import org.bitopk.compression.ValueFormat;
import java.util.Objects;
import org.bitopk.compression.CompressorSpec;

/**
 * How workers compress: compressor, target k, what they remember between rounds ({@link UplinkFeedback}), the
 * learning rate applied before compression (c_i = e_i + lr·g_i; EF21 sends gradient units and the server applies
 * lr), and worker-side momentum.
 */
public record UplinkSettings(CompressorSpec compressor, int targetK, UplinkFeedback feedback, float momentum,
    long seed, float memoryRate, ValueFormat values) implements Serializable {

  /**
   * @param memoryRate α_up, how far a worker's gradient estimate moves towards what it sent ({@link UplinkFeedback#ARTEMIS});
   *     1 for the other feedbacks
   * @param values the format of the values a worker sends; narrower than FP32 only with a residual (EF14) or none,
   *     which keep c minus the rounded values (see {@code ErrorFeedback})
   */
  public UplinkSettings {
    Objects.requireNonNull(feedback, "feedback");
    Objects.requireNonNull(values, "values");
    if (values != ValueFormat.FP32 && feedback.keepsGradientEstimate()) {
      throw new IllegalArgumentException("--values-up " + values.text() + ": applies with --uplink-feedback ef14 or none only; " + feedback.cliName() + " sends fp32 values");
    }
    if (targetK < 1) {
      throw new IllegalArgumentException("uplink target k must be >= 1, got " + targetK);
    }
    if (!(momentum >= 0f && momentum < 1f)) {
      throw new IllegalArgumentException("momentum must be in [0, 1), got " + momentum);
    }
    if (feedback.keepsGradientEstimate() && momentum != 0f) {
      throw new IllegalArgumentException(feedback.cliName() + " keeps a gradient estimate, not a momentum: "
          + "momentum must be 0");
    }
    if (!(memoryRate > 0f && memoryRate <= 1f)) {
      throw new IllegalArgumentException("uplink memory rate must be in (0, 1], got " + memoryRate);
    }
    if (feedback != UplinkFeedback.ARTEMIS && memoryRate != 1f) {
      throw new IllegalArgumentException("an uplink memory rate applies to artemis only, got " + memoryRate
          + " with " + feedback.cliName());
    }
  }

  /** FP32 values. */
  public UplinkSettings(CompressorSpec compressor, int targetK, UplinkFeedback feedback, float momentum, long seed,
      float memoryRate) {
    this(compressor, targetK, feedback, momentum, seed, memoryRate, ValueFormat.FP32);
  }

  /** Any feedback but Artemis (memory rate 1). */
  public UplinkSettings(CompressorSpec compressor, int targetK, UplinkFeedback feedback, float momentum, long seed) {
    this(compressor, targetK, feedback, momentum, seed, 1f);
  }

  /** Classic error feedback ({@code errorFeedback}) or plain compression. */
  public UplinkSettings(CompressorSpec compressor, int targetK, boolean errorFeedback, float momentum, long seed) {
    this(compressor, targetK, errorFeedback ? UplinkFeedback.EF14 : UplinkFeedback.NONE, momentum, seed);
  }

  /** Whether workers keep any memory vector (a residual or a gradient estimate). */
  public boolean errorFeedback() {
    return feedback != UplinkFeedback.NONE;
  }
}
