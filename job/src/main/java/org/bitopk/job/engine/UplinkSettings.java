package org.bitopk.job.engine;

import java.io.Serializable;
import org.bitopk.compression.CompressorSpec;

/**
 * How workers compress: compressor, target k, whether they keep a residual (error feedback), the learning
 * rate applied before compression (c_i = e_i + lr·g_i), and worker-side momentum.
 */
public record UplinkSettings(CompressorSpec compressor, int targetK, boolean errorFeedback, float momentum,
    long seed) implements Serializable {

  public UplinkSettings {
    if (targetK < 1) {
      throw new IllegalArgumentException("uplink target k must be >= 1, got " + targetK);
    }
    if (!(momentum >= 0f && momentum < 1f)) {
      throw new IllegalArgumentException("momentum must be in [0, 1), got " + momentum);
    }
  }
}
