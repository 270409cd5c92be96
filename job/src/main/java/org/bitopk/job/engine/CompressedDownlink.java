package org.bitopk.job.engine;

import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;

/**
 * Bidirectional compression with server error feedback (DoubleSqueeze with C = TopK): the server's step, with
 * a the workers' average (or the step the {@link ServerUplinkMemory} made of it),
 *
 * <pre>
 *   c = e_s + a             (ErrorFeedback.step with scale 1)
 *   p = C(c)                (broadcast; the replicas apply it)
 *   e_s = c − p
 * </pre>
 */
final class CompressedDownlink extends CompressingDownlink {
  CompressedDownlink(CompressorSpec compressor, int targetK) {
    super(compressor, targetK);
  }

  @Override
  public String describe() {
    return compressor + " (k = " + targetK + ")";
  }

  @Override
  ServerDownlink serverSide(Compressor c, ErrorFeedback memory) {
    return openWith(c, targetK, memory);
  }

  /** The server side with a given compressor; {@code feedback} holds e_s. */
  static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback feedback) {
    return memoryStep(c, targetK, feedback, 1f);
  }
}
