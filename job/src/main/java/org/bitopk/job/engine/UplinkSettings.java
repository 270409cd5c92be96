package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.Objects;
import org.bitopk.compression.CompressorSpec;

/**
 * How workers compress: compressor, target k, what they remember between rounds ({@link UplinkFeedback}), the
 * learning rate applied before compression (c_i = e_i + lr·g_i; EF21 sends gradient units and the server applies
 * lr), and worker-side momentum.
 */
public record UplinkSettings(CompressorSpec compressor, int targetK, UplinkFeedback feedback, float momentum,
    long seed) implements Serializable {

  public UplinkSettings {
    Objects.requireNonNull(feedback, "feedback");
    if (targetK < 1) {
      throw new IllegalArgumentException("uplink target k must be >= 1, got " + targetK);
    }
    if (!(momentum >= 0f && momentum < 1f)) {
      throw new IllegalArgumentException("momentum must be in [0, 1), got " + momentum);
    }
    if (feedback == UplinkFeedback.EF21 && momentum != 0f) {
      throw new IllegalArgumentException("EF21 keeps a gradient estimate, not a momentum: momentum must be 0");
    }
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
