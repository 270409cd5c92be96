package org.bitopk.job.engine;

import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;

/**
 * Bidirectional compression with server error feedback (DoubleSqueeze with C = TopK): the server's step, with
 * a the workers' average,
 *
 * <pre>
 *   c = e_s + a             (ErrorFeedback.step with scale 1)
 *   p = C(c)                (broadcast; the replicas apply it)
 *   e_s = c − p
 * </pre>
 */
final class CompressedDownlink extends DownlinkStrategy {
  private final CompressorSpec compressor;
  private final int targetK;

  CompressedDownlink(CompressorSpec compressor, int targetK) {
    this.compressor = checkedCompressor(compressor, targetK);
    this.targetK = targetK;
  }

  @Override
  public Integer targetK() {
    return targetK;
  }

  @Override
  public String describe() {
    return compressor + " (k = " + targetK + ")";
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

  /** The server side with a given compressor; {@code feedback} holds e_s. */
  static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback feedback) {
    return new ServerDownlink() {
      @Override
      public Sent send(float[] average, int[] union) {
        CompressionStep step = feedback.step(average, 1f, c, targetK);   // c = e_s + a, p = C(c), e_s = c − p
        return new Sent(step.sent(), step.targetK(), step.achievedK(),
            NormRatio.of(step.residualNorm(), step.compensatedNorm()));
      }

      @Override
      public float[] residual() {
        return feedback.residual();
      }

      @Override
      public byte[] compressorState() {
        return c.saveState();
      }
    };
  }
}
