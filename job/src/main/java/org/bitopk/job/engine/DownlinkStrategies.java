package org.bitopk.job.engine;

import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ValueFormat;

/**
 * The {@link DownlinkStrategy}s a run plan chooses from, one factory each; apart from the strategies' base class,
 * which knows none of them.
 */
public final class DownlinkStrategies {
  private DownlinkStrategies() {}

  /** Bidirectional: c = a + e_s, p = C(c), e_s = c − p (server error feedback; DoubleSqueeze with C = TopK). */
  public static DownlinkStrategy compressed(CompressorSpec compressor, int targetK) {
    return new CompressedDownlink(compressor, targetK, ValueFormat.FP32);
  }

  /**
   * Bidirectional with the update's values rounded to {@code values}: e_s keeps c minus the rounded values (see
   * {@code ErrorFeedback}). The other strategies send FP32 values.
   */
  public static DownlinkStrategy compressed(CompressorSpec compressor, int targetK, ValueFormat values) {
    return new CompressedDownlink(compressor, targetK, values);
  }

  /**
   * EF21-P (Gruntkowska, Tyurin, Richtárik, ICML 2023): the server keeps the exact model x and the workers' model
   * w; x' = x − a, it broadcasts p = C(x' − w) and everyone sets w ← w + p. Kept as the difference r = x − w (the
   * only part of x the server does not already hold as its master copy w): c = r + (−1)·a = x' − w, p = C(c),
   * r ← c − p = x' − w'. The replicas subtract the update they receive, so the broadcast update is −p.
   */
  public static DownlinkStrategy modelDifference(CompressorSpec compressor, int targetK) {
    return new ModelDifferenceDownlink(compressor, targetK);
  }

  /**
   * MCM (Philippenko & Dieuleveut, NeurIPS 2021): the server keeps the exact central model x, a downlink memory H and
   * sends Ω = C(x' − H); workers compute at ŵ' = H + Ω and everyone sets H ← H + α_dwn·Ω. See
   * {@link PreservedCentralModelDownlink} for how the job keeps it; α_dwn = 1 is EF21-P bit for bit.
   */
  public static DownlinkStrategy preservedCentralModel(CompressorSpec compressor, int targetK, float memoryRate) {
    return new PreservedCentralModelDownlink(compressor, targetK, memoryRate);
  }

  /** Unidirectional and dense: the average a itself is the update. */
  public static DownlinkStrategy average() {
    return AverageDownlink.INSTANCE;
  }
}
