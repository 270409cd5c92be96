package org.bitopk.job.engine;

import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;

/**
 * EF21-P (Gruntkowska, Tyurin, Richtárik, ICML 2023), kept as the difference r = x − w between the server's exact
 * model and the workers' (see {@link DownlinkStrategies#modelDifference}):
 *
 * <pre>
 *   c = r + (−1)·a          (= x' − w)
 *   p = C(c)                (the replicas subtract the update, so −p is broadcast)
 *   r = c − p               (= x' − w')
 * </pre>
 */
final class ModelDifferenceDownlink extends CompressingDownlink {
  ModelDifferenceDownlink(CompressorSpec compressor, int targetK) {
    super(compressor, targetK);
  }

  @Override
  public String describe() {
    return "ef21-p " + compressor + " (k = " + targetK + ")";
  }

  @Override
  ServerDownlink serverSide(Compressor c, ErrorFeedback memory) {
    return openWith(c, targetK, memory);
  }

  /** The server side with a given compressor; {@code difference} holds r = x − w. */
  static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback difference) {
    return memoryStep(c, targetK, difference, -1f);
  }
}
