package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Compressor#message} is what error feedback would send for the same vector without a residual: checked
 * against {@link ErrorFeedback#disabled}'s step on a second instance of the same spec and seed, over several calls
 * (so the random streams advance alike), bit for bit. For the unbiased compressors the message carries their own
 * values, not x's.
 */
class CompressorMessageTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"topk", "topk:strict", "randomk", "randomk:scaled", "natural", "dgc", "gaussiank",
      "sidco-e", "threshold:tau=0.5"})
  void messageEqualsWhatErrorFeedbackWithoutResidualSends(String spec) {
    CompressorSpec parsed = CompressorSpec.parse(spec);
    Compressor viaMessage = parsed.create(17);
    Compressor viaFeedback = parsed.create(17);
    ErrorFeedback none = ErrorFeedback.disabled(500);
    Random random = new Random(3);
    for (int call = 0; call < 5; call++) {
      float[] x = new float[500];
      for (int j = 0; j < x.length; j++) {
        x[j] = (float) random.nextGaussian();
      }
      float[] copy = x.clone();
      SparseVector message = viaMessage.message(x, 10);
      SparseVector sent = none.step(x, 1f, viaFeedback, 10).sent();
      assertArrayEquals(copy, x, "x is not modified");
      assertArrayEquals(sent.indices(), message.indices(), spec + ", call " + call);
      assertArrayEquals(sent.values(), message.values(), spec + ", call " + call);
      if (parsed.unbiased() && spec.startsWith("randomk")) {
        assertEquals(50f * x[message.index(0)], message.value(0), "(d/k)·x at a chosen coordinate");
      }
    }
  }
}
