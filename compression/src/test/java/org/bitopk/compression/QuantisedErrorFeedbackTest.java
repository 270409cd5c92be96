package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Error feedback with rounded values: the compressor selects on the exact c (a twin compressor in lockstep, fed c
 * formed here, selects the same coordinates), the message carries the format's rounding of c there, the residual is
 * exactly c - sent at the sent coordinates and c elsewhere, and the message's bytes decode to it bit for bit.
 */
class QuantisedErrorFeedbackTest {

  static final String[] SELECTORS = {"topk", "topk:strict", "gaussiank", "sidco-e", "dgc", "randomk",
      "threshold:tau=0.5"};

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (ValueFormat format : new ValueFormat[] {ValueFormat.FP16, ValueFormat.BF16, ValueFormat.INT8}) {
      for (String spec : SELECTORS) {
        cases.add(Arguments.of(spec, format, 0.01f)); // a worker: c = residual + lr * gradient
        cases.add(Arguments.of(spec, format, 1f)); // the server: c = residual + aggregate
      }
    }
    return cases.stream();
  }

  /** Inputs with subnormals, signed zeros and, now and then, values far beyond FP16's range. */
  static float[] input(int d, int round, SplittableRandom r) {
    float[] x = Vectors.gaussian(d, round * 31L + 7);
    for (int i = 0; i < d; i += 17) {
      x[i] = (i & 1) == 0 ? 0f : -0f;
    }
    for (int i = 5; i < d; i += 29) {
      x[i] = (float) (Vectors.gaussian(r) * 1e-39); // subnormal
    }
    if (round % 3 == 2) {
      x[r.nextInt(d)] = (float) (1e9 * (r.nextBoolean() ? 1 : -1)); // beyond FP16's 65504 even times 0.01
    }
    return x;
  }

  @ParameterizedTest(name = "{0} {1} scale={2}")
  @MethodSource("cases")
  void sentPlusResidualIsCExactlyAndTheBytesCarryTheSentValues(String spec, ValueFormat format, float scale) {
    int d = 3000;
    ErrorFeedback feedback = ErrorFeedback.enabled(d);
    Compressor compressor = CompressorSpec.parse(spec).create(11);
    Compressor twin = CompressorSpec.parse(spec).create(11);
    SplittableRandom r = new SplittableRandom(spec.hashCode());
    int fallbacks = 0;
    for (int round = 0; round < 12; round++) {
      float[] x = input(d, round, r);
      float[] before = feedback.residual();
      float[] c = new float[d];
      for (int i = 0; i < d; i++) {
        c[i] = before[i] + scale * x[i];
      }
      int k = round % 4 == 3 ? d : 30; // k = d sends the signed zeros too
      CompressionStep step = feedback.step(x, scale, compressor, k, format);
      int[] expectedIdx = twin.select(c, k).indices();
      SparseVector sent = step.sent();
      assertArrayEquals(expectedIdx, sent.indices(), "selected on the exact c, round " + round);
      float[] exact = new float[sent.nnz()];
      for (int j = 0; j < exact.length; j++) {
        exact[j] = c[sent.index(j)];
      }
      float[] rounded = format.round(exact);
      boolean fits = true;
      for (float v : rounded) {
        fits &= Float.isFinite(v);
      }
      assertEquals(fits ? format : ValueFormat.FP32, step.valueFormat(), "round " + round);
      fallbacks += fits ? 0 : 1;
      float[] residual = feedback.residual();
      boolean[] isSent = new boolean[d];
      for (int j = 0; j < sent.nnz(); j++) {
        int i = sent.index(j);
        isSent[i] = true;
        float s = sent.value(j);
        assertTrue(Float.isFinite(s));
        float expectedSent = fits ? rounded[j] : c[i];
        if (c[i] != 0 || format != ValueFormat.INT8) {
          assertEquals(Float.floatToRawIntBits(expectedSent), Float.floatToRawIntBits(s), "value at " + i);
        } else {
          assertEquals(0f, s); // INT8 has no -0: +0 is sent and the residual keeps c's sign
        }
        assertEquals((double) c[i] - (double) s, residual[i], 0.0, "residual exactly c - sent at " + i);
        assertEquals(c[i], s + residual[i], 0.0, "sent + residual == c at " + i);
      }
      for (int i = 0; i < d; i++) {
        if (!isSent[i]) {
          assertEquals(Float.floatToRawIntBits(c[i]), Float.floatToRawIntBits(residual[i]), "unsent " + i);
        }
      }
      byte[] bytes = SparseCodec.encode(sent, step.valueFormat());
      assertEquals(sent, SparseCodec.decode(bytes), "the wire carries exactly the sent values");
      byte[] exactly = SparseCodec.encodeExactly(sent, format);
      assertEquals(sent, SparseCodec.decode(exactly));
      assertEquals(bytes.length, exactly.length, "in the step's format, or FP32 after a fallback");
      double rr = 0;
      for (float v : residual) {
        rr += (double) v * v;
      }
      assertEquals(Math.sqrt(rr), step.residualNorm(), 1e-6 * Math.max(1e-30, step.compensatedNorm()));
    }
    if (format == ValueFormat.FP16 && spec.startsWith("topk")) {
      assertTrue(fallbacks > 0, "the 1e9 inputs made some FP16 message fall back to FP32");
    }
  }

  /** Values not exact in the format (here: the INT8 scale's largest value removed) go in FP32, still exact. */
  @Test
  void encodeExactlyFallsBackToFp32WhenTheValuesAreNotExactInTheFormat() {
    float[] x = Vectors.gaussian(1000, 9);
    CompressionStep step = ErrorFeedback.enabled(1000).step(x, 1f, new TopKCompressor(), 50, ValueFormat.INT8);
    SparseVector sent = step.sent();
    byte[] int8 = SparseCodec.encodeExactly(sent, ValueFormat.INT8);
    assertEquals(IndexSizes.header(1000, 50) + IndexSizes.smallest(sent.indices(), 1000) + 4 + 50, int8.length);
    int largest = 0;
    for (int j = 1; j < sent.nnz(); j++) {
      largest = Math.abs(sent.value(j)) > Math.abs(sent.value(largest)) ? j : largest;
    }
    int[] idx = new int[49];
    float[] val = new float[49];
    for (int j = 0, n = 0; j < 50; j++) {
      if (j != largest) {
        idx[n] = sent.index(j);
        val[n++] = sent.value(j);
      }
    }
    SparseVector withoutLargest = SparseVector.of(1000, idx, val);
    byte[] bytes = SparseCodec.encodeExactly(withoutLargest, ValueFormat.INT8);
    assertEquals(withoutLargest, SparseCodec.decode(bytes));
    assertEquals(IndexSizes.header(1000, 49) + IndexSizes.smallest(idx, 1000) + 4 * 49, bytes.length);
  }

  /** FP32 through the five-argument step is today's step, bit for bit. */
  @Test
  void fp32IsThePlainStep() {
    ErrorFeedback a = ErrorFeedback.enabled(500);
    ErrorFeedback b = ErrorFeedback.enabled(500);
    Compressor ca = CompressorSpec.parse("topk").create(1);
    Compressor cb = CompressorSpec.parse("topk").create(1);
    for (int round = 0; round < 5; round++) {
      float[] x = Vectors.gaussian(500, round);
      CompressionStep sa = a.step(x, 0.1f, ca, 7);
      CompressionStep sb = b.step(x, 0.1f, cb, 7, ValueFormat.FP32);
      assertEquals(sa.sent(), sb.sent());
      assertEquals(ValueFormat.FP32, sb.valueFormat());
      assertArrayEquals(a.residual(), b.residual());
    }
  }

  /** A message of coordinates near Float.MAX_VALUE goes in FP32 under BF16 and INT8 rather than as infinity. */
  @Test
  void valuesThatWouldOverflowSendTheMessageInFp32() {
    for (ValueFormat format : new ValueFormat[] {ValueFormat.BF16, ValueFormat.INT8, ValueFormat.FP16}) {
      ErrorFeedback feedback = ErrorFeedback.enabled(4);
      float[] x = {Float.MAX_VALUE, -1f, 0.5f, 2f};
      CompressionStep step = feedback.step(x, 1f, CompressorSpec.parse("topk").create(1), 2, format);
      assertEquals(ValueFormat.FP32, step.valueFormat(), format.toString());
      assertArrayEquals(new float[] {Float.MAX_VALUE, 2f}, step.sent().values());
      assertArrayEquals(new float[] {0f, -1f, 0.5f, 0f}, feedback.residual());
    }
  }

  /** Natural compression's powers of two under FP16 and BF16: sent is the rounding, the residual stays exact. */
  @Test
  void naturalCompressionStaysExactUnderSixteenBitFormats() {
    for (ValueFormat format : new ValueFormat[] {ValueFormat.FP16, ValueFormat.BF16}) {
      ErrorFeedback feedback = ErrorFeedback.enabled(2000);
      Compressor natural = CompressorSpec.parse("natural").create(5);
      for (int round = 0; round < 4; round++) {
        float[] x = Vectors.gaussian(2000, round + 100);
        x[3] = 1e-30f; // rounds to zero in FP16
        float[] c = feedback.residual();
        for (int i = 0; i < c.length; i++) {
          c[i] += 0.01f * x[i];
        }
        CompressionStep step = feedback.step(x, 0.01f, natural, 10, format);
        assertEquals(format, step.valueFormat());
        float[] residual = feedback.residual();
        for (int j = 0; j < step.sent().nnz(); j++) {
          int i = step.sent().index(j);
          float s = step.sent().value(j);
          assertEquals(Float.floatToRawIntBits(format.round(new float[] {s})[0]), Float.floatToRawIntBits(s));
          assertEquals((double) c[i] - (double) s, residual[i], 0.0, format + " at " + i);
        }
        assertEquals(step.sent(), SparseCodec.decode(SparseCodec.encode(step.sent(), format)));
      }
    }
  }
}
