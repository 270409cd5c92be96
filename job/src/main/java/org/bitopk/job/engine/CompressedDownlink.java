package org.bitopk.job.engine;

import java.util.Objects;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;
import org.bitopk.compression.ValueFormat;

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
  private final ValueFormat values;

  /** @param values the format p's values are rounded to; e_s keeps c minus them */
  CompressedDownlink(CompressorSpec compressor, int targetK, ValueFormat values) {
    super(compressor, targetK);
    this.values = Objects.requireNonNull(values, "values");
  }

  @Override
  public String describe() {
    return compressor + " (k = " + targetK + (values == ValueFormat.FP32 ? "" : ", " + values.text() + " values")
        + ")";
  }

  @Override
  ServerDownlink serverSide(Compressor c, ErrorFeedback memory) {
    return memoryStep(c, targetK, memory, 1f, values);
  }

  /** The server side with a given compressor; {@code feedback} holds e_s. */
  static ServerDownlink openWith(Compressor c, int targetK, ErrorFeedback feedback) {
    return memoryStep(c, targetK, feedback, 1f, ValueFormat.FP32);
  }
}
