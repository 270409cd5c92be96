package org.bitopk.job.engine;

import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;

/**
 * EF21-P (Gruntkowska, Tyurin, Richtárik, ICML 2023), kept as the difference r = x − w between the server's exact
 * model and the workers' (see {@link DownlinkStrategy#modelDifference}):
 *
 * <pre>
 *   c = r + (−1)·a          (= x' − w)
 *   p = C(c)                (the replicas subtract the update, so −p is broadcast)
 *   r = c − p               (= x' − w')
 * </pre>
 */
final class ModelDifferenceDownlink extends DownlinkStrategy {
  private final CompressorSpec compressor;
  private final int targetK;

  ModelDifferenceDownlink(CompressorSpec compressor, int targetK) {
    this.compressor = checkedCompressor(compressor, targetK);
    this.targetK = targetK;
  }

  @Override
  public Integer targetK() {
    return targetK;
  }

  @Override
  public String describe() {
    return "ef21-p " + compressor + " (k = " + targetK + ")";
  }

  @Override
  ServerDownlink open(int dimension, long seed) {
    return openWith(compressor(compressor, targetK, dimension, seed), targetK, ErrorFeedback.enabled(dimension));
  }

  @Override
  ServerDownlink resume(int dimension, long seed, float[] residual, byte[] compressorState) {
    Compressor c = compressor(compressor, targetK, dimension, seed);
    c.restoreState(compressorState);
    return openWith(c, targetK, ErrorFeedback.restore(residual));
  }

  /** The server side with a given compressor; {@code difference} holds r = x − w. */
  static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback difference) {
    return new ServerDownlink() {
      @Override
      public Sent send(float[] average, int[] union) {
        CompressionStep step = difference.step(average, -1f, c, targetK);
        return new Sent(negated(step.sent()), step.targetK(), step.achievedK(),
            NormRatio.of(step.residualNorm(), step.compensatedNorm()));
      }

      @Override
      public float[] residual() {
        return difference.residual();
      }

      @Override
      public byte[] compressorState() {
        return c.saveState();
      }
    };
  }
}
