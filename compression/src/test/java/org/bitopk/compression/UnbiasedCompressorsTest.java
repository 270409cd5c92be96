package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The unbiased compressors {@code randomk:scaled} and {@code natural}: E[C(x)] = x measured over many seeded calls,
 * their variance bounds on measured data, determinism per (seed, call) against a reference written here, state,
 * the wire format and error feedback.
 */
class UnbiasedCompressorsTest {

  private static final int CALLS = 20_000;

  /** A vector of mixed magnitudes and signs, d not a multiple of 8, with a zero, a -0 and an exact power of two. */
  private static float[] mixed(int d, long seed) {
    float[] x = Vectors.heavyTailed(d, seed);
    x[0] = 0f;
    x[1] = -0f;
    x[2] = 0.25f;
    x[3] = -3f;
    return x;
  }

  /** Exact per-coordinate variance, written from the definitions: natural rounds |x| in [a, 2a) to a or 2a. */
  private static double naturalVariance(float v) {
    double ax = Math.abs((double) v);
    if (ax == 0) {
      return 0;
    }
    double a = ax < 0x1p-126 ? 0 : Math.scalb(1.0, Math.getExponent(v));
    double b = ax < 0x1p-126 ? 0x1p-126 : 2 * a;
    return (ax - a) * (b - ax);
  }

  static Stream<Arguments> unbiasedCases() {
    return Stream.of(
        Arguments.of("natural", 37, 37), Arguments.of("natural", 8, 1),
        Arguments.of("randomk:scaled", 37, 5), Arguments.of("randomk:scaled", 37, 1),
        Arguments.of("randomk:scaled", 37, 36), Arguments.of("randomk:scaled", 64, 16));
  }

  /**
   * The mean over {@value #CALLS} calls is within 5 standard errors of x in every coordinate, the standard error
   * computed from the exact per-coordinate variance (scaled Random-k: (d/k − 1)x²; natural: (|x| − a)(2a − |x|)).
   * Coordinates of zero variance must come out exact.
   */
  @ParameterizedTest(name = "{0} d={1} k={2}")
  @MethodSource("unbiasedCases")
  void meanOfManyCallsIsTheInput(String spec, int d, int k) {
    float[] x = mixed(d, d * 7L + k);
    double[] mean = meanOf(CompressorSpec.parse(spec).create(11), x, k, CALLS);
    for (int i = 0; i < d; i++) {
      double variance = spec.equals("natural") ? naturalVariance(x[i]) : ((double) d / k - 1) * x[i] * x[i];
      double tolerance = 5 * Math.sqrt(variance / CALLS) + Math.abs(x[i]) * 0x1p-22;
      assertEquals(x[i], mean[i], tolerance, spec + " coordinate " + i);
    }
  }

  /** The same check rejects a biased compressor: plain Random-k's mean is (k/d)x. */
  @Test
  void theUnbiasednessCheckWouldCatchPlainRandomK() {
    int d = 37;
    int k = 5;
    float[] x = mixed(d, 1);
    double[] mean = meanOf(new SelectingAsValues(CompressorSpec.parse("randomk").create(11)), x, k, CALLS);
    int far = 0;
    for (int i = 0; i < d; i++) {
      double tolerance = 5 * Math.sqrt(((double) d / k - 1) * x[i] * x[i] / CALLS);
      if (Math.abs(mean[i] - x[i]) > tolerance) {
        far++;
      }
    }
    assertTrue(far > d / 2, far + " of " + d + " coordinates biased");
  }

  /**
   * Measured E‖C(x) − x‖² against the variance bounds: scaled Random-k attains (d/k − 1)‖x‖² exactly in expectation;
   * natural compression stays below ‖x‖²/8 and matches the exact per-coordinate sum; a vector at the worst case
   * |x| = 4/3·2^e reaches 1/8.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"randomk:scaled", "natural", "natural-worst-case"})
  void measuredVarianceMeetsTheBound(String which) {
    int d = 101;
    int k = 10;
    float[] x = mixed(d, 3);
    if (which.equals("natural-worst-case")) {
      for (int i = 0; i < d; i++) {
        x[i] = (float) Math.scalb((i % 2 == 0 ? 4.0 : -4.0) / 3, i % 40 - 20);
      }
    }
    String spec = which.startsWith("natural") ? "natural" : which;
    Compressor c = CompressorSpec.parse(spec).create(5);
    double normSquared = 0;
    double exact = 0;
    for (float v : x) {
      normSquared += (double) v * v;
      exact += spec.equals("natural") ? naturalVariance(v) : ((double) d / k - 1) * v * v;
    }
    int calls = 4_000;
    double sum = 0;
    for (int n = 0; n < calls; n++) {
      float[] out = ((ValueCompressor) c).compress(x, k).toDense();
      for (int i = 0; i < d; i++) {
        double e = (double) out[i] - x[i];
        sum += e * e;
      }
    }
    double measured = sum / calls;
    double bound = spec.equals("natural") ? normSquared / 8 : ((double) d / k - 1) * normSquared;
    assertEquals(exact, measured, 0.08 * exact, "measured variance against the exact expectation");
    assertTrue(exact <= bound * (1 + 1e-12), "exact variance " + exact + " above the bound " + bound);
    if (which.equals("natural-worst-case")) {
      assertEquals(1.0 / 8, exact / normSquared, 1e-6);
    }
    if (spec.equals("randomk:scaled")) {
      assertEquals(bound, exact, 1e-9 * bound);
    }
  }

  /** Natural compression reproduces, call by call, a reference written from the definition in doubles. */
  @Test
  void naturalFollowsTheDefinitionWithTheCallSeeds() {
    int d = 1003;
    float[] x = mixed(d, 8);
    x[4] = Float.MIN_VALUE;
    x[5] = -0x1.8p-130f; // subnormal
    x[6] = 0x1p127f;
    x[7] = -Float.MIN_NORMAL;
    long seed = 42;
    Compressor c = CompressorSpec.parse("natural").create(seed);
    for (int call = 0; call < 5; call++) {
      SparseVector out = ((ValueCompressor) c).compress(x, 1);
      assertArrayEquals(RadixSelect.iota(d), out.indices());
      SplittableRandom random = new SplittableRandom(CallSeeds.of(seed, call));
      for (int i = 0; i < d; i++) {
        double ax = Math.abs((double) x[i]);
        double u = (random.nextInt() >>> 9) / 0x1p23;
        double expected;
        if (ax == 0) {
          expected = 0;
        } else if (ax < 0x1p-126) {
          expected = u < ax / 0x1p-126 ? 0x1p-126 : 0;
        } else {
          double a = Math.scalb(1.0, Math.getExponent(x[i]));
          expected = u < (ax - a) / a ? 2 * a : a;
        }
        float want = (float) Math.copySign(expected, x[i]);
        assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(out.value(i)),
            "call " + call + " index " + i + ": x = " + x[i]);
      }
    }
  }

  /** Scaled Random-k sends randomk's selection (same seed, same call) times d/k. */
  @ParameterizedTest(name = "k={0}")
  @ValueSource(ints = {1, 3, 50, 99, 100})
  void scaledRandomKIsRandomKTimesDOverK(int k) {
    int d = 100;
    float[] x = Vectors.gaussian(d, k);
    Compressor plain = CompressorSpec.parse("randomk").create(9);
    Compressor scaled = CompressorSpec.parse("randomk:scaled").create(9);
    for (int call = 0; call < 4; call++) {
      int[] expected = plain.select(x, k).indices();
      SparseVector out = ((ValueCompressor) scaled).compress(x, k);
      assertArrayEquals(expected, out.indices());
      for (int j = 0; j < k; j++) {
        assertEquals((float) (x[expected[j]] * 100.0 / k), out.value(j));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"randomk:scaled", "natural"})
  void outputIsAFunctionOfSeedAndCallAndRestoresFromState(String spec) {
    int d = 300;
    int k = 30;
    float[] x = Vectors.gaussian(d, 2);
    ValueCompressor a = (ValueCompressor) CompressorSpec.parse(spec).create(7);
    ValueCompressor b = (ValueCompressor) CompressorSpec.parse(spec).create(7);
    ValueCompressor other = (ValueCompressor) CompressorSpec.parse(spec).create(8);
    SparseVector first = a.compress(x, k);
    assertEquals(first, b.compress(x, k));
    assertNotEquals(first, other.compress(x, k));
    byte[] state = a.saveState();
    SparseVector second = a.compress(x, k);
    assertNotEquals(first, second, "call 1 draws differently from call 0");
    ValueCompressor fresh = (ValueCompressor) CompressorSpec.parse(spec).create(7);
    fresh.restoreState(state);
    assertEquals(second, fresh.compress(x, k));
    a.restoreState(state);
    assertEquals(second, a.compress(x, k));
    IllegalArgumentException wrongKind = assertThrows(IllegalArgumentException.class,
        () -> CompressorSpec.parse(spec.equals("natural") ? "randomk" : "natural").create(7).restoreState(state));
    assertTrue(wrongKind.getMessage().startsWith("compressor state was saved by '" + spec + "'"),
        wrongKind.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CompressorSpec.parse(spec).create(6).restoreState(state));
  }

  static Stream<Arguments> wireCases() {
    return Stream.of(1, 7, 8, 9, 37, 1000, 100_003).flatMap(d -> Stream.of(Arguments.of("natural", d),
        Arguments.of("randomk:scaled", d)));
  }

  /**
   * Bytes decode to exactly what the compressor produced, and their length is the documented formula computed here:
   * natural, header + ceil(9d/8) (dense layout); scaled Random-k, header + smallest index layout (delta, bitmap or Rice) + 4 bytes a value
   * (9 bits when every value happens to be a power of two or zero).
   */
  @ParameterizedTest(name = "{0} d={1}")
  @MethodSource("wireCases")
  void wireRoundTripIsBitExactAndHasTheDocumentedLength(String spec, int d) {
    float[] x = mixed(Math.max(d, 4), d);
    x = java.util.Arrays.copyOf(x, d);
    int k = Math.max(1, d / 10);
    SparseVector sent = ((ValueCompressor) CompressorSpec.parse(spec).create(3)).compress(x, k);
    byte[] bytes = SparseCodec.encode(sent, ValueFormat.FP32);
    SparseVector back = SparseCodec.decode(bytes);
    assertEquals(sent, back); // Arrays.equals on floats: bit patterns, so -0 and 0 differ
    long expected;
    if (spec.equals("natural")) {
      expected = 4 + 2 * leb128(d) + (9L * d + 7) / 8;
      assertEquals("dense", SparseCodec.layoutName(bytes));
    } else {
      long indexBytes = IndexSizes.smallest(sent.indices(), d);
      // values that are all ±0 or normal powers of two (here only when d is tiny) take the 9-bit codes
      boolean powers = true;
      for (float v : sent.values()) {
        powers &= v == 0 || (Math.abs(v) >= Float.MIN_NORMAL && Math.scalb(1.0f, Math.getExponent(v)) == Math.abs(v));
      }
      expected = 4 + leb128(d) + leb128(k) + indexBytes + (powers ? (9L * k + 7) / 8 : 4L * k);
    }
    assertEquals(expected, bytes.length);
    assertEquals(expected, SparseCodec.encodedLength(sent, ValueFormat.FP32));
    if (spec.equals("natural") && d >= 1000) {
      assertTrue(bytes.length * 8.0 / d < 9.1, "about 9 bits per entry: " + bytes.length);
    }
  }

  private static long leb128(long value) {
    long n = 1;
    while (value >= 128) {
      value >>>= 7;
      n++;
    }
    return n;
  }

  /** The power-of-two values apply exactly when they are exact, and for FP16 only within the half range. */
  @Test
  void powerOfTwoValuesAreUsedOnlyWhenExact() {
    float[] powers = {0f, -0f, Float.MIN_NORMAL, -0x1p127f, 1f, -0.5f, 0x1p100f};
    SparseVector v = SparseVector.of(10, new int[] {0, 1, 2, 3, 5, 8, 9}, powers);
    byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32);
    assertEquals(SparseCodec.FLAG_POW2, bytes[3] & 12);
    assertEquals(v, SparseCodec.decode(bytes));
    // 4 header + d + nnz varints + bitmap (2 bytes, smaller than 7 deltas) + ceil(63 / 8) = 8
    assertEquals(4 + 1 + 1 + 2 + 8, bytes.length);
    // a subnormal power of two has no 8-bit exponent code: FP32
    SparseVector subnormal = SparseVector.of(2, new int[] {0, 1}, new float[] {1f, 0x1p-127f});
    assertEquals(4 + 2 + 8, SparseCodec.encode(subnormal, ValueFormat.FP32).length);
    assertEquals(subnormal, SparseCodec.decode(SparseCodec.encode(subnormal, ValueFormat.FP32)));
    // FP16 requested: within [2^-24, 2^15] the codes decode to what FP16 would give; outside, FP16 rounds as asked
    SparseVector halfRange = SparseVector.of(2, new int[] {0, 1}, new float[] {0x1p-24f, 0x1p15f});
    byte[] half = SparseCodec.encode(halfRange, ValueFormat.FP16);
    assertEquals(SparseCodec.FLAG_POW2, half[3] & 12);
    assertEquals(halfRange, SparseCodec.decode(half));
    SparseVector beyond = SparseVector.of(2, new int[] {0, 1}, new float[] {0x1p-26f, 1f});
    byte[] rounded = SparseCodec.encode(beyond, ValueFormat.FP16);
    assertEquals(SparseCodec.FLAG_FP16, rounded[3] & 12);
    assertEquals(0f, SparseCodec.decode(rounded).value(0));
  }

  @Test
  void corruptPowerOfTwoValuesAreRefused() {
    SparseVector v = SparseVector.of(3, new int[] {0, 1, 2}, new float[] {1f, 2f, 4f});
    byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32);
    assertEquals(4 + 1 + 1 + 4, bytes.length); // dense layout, 27 bits in 4 bytes
    byte[] infinite = bytes.clone();
    infinite[6] = (byte) 0xff; // value 0: exponent field 255
    assertEquals("value[0] at index 0 has power-of-two code 0xff (exponent field 255, not finite); expected finite "
        + "values", assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(infinite)).getMessage());
    byte[] padding = bytes.clone();
    padding[9] |= (byte) 0x80;
    assertEquals("power-of-two padding bits after the last value are not zero; expected zero padding",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(padding)).getMessage());
    byte[] both = bytes.clone();
    both[3] |= SparseCodec.FLAG_FP16;
    assertTrue(assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(both)).getMessage()
        .startsWith("unknown layout byte 0xe"));
    byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 1);
    assertEquals("truncated: 3 values need 4 bytes but only 3 remain",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(truncated)).getMessage());
  }

  @Test
  void naturalKeepsZerosAndPowersOfTwoAndRoundsSubnormalsUnbiasedly() {
    float[] x = {0f, -0f, 1f, -0x1p-126f, 0x1p127f, Float.MIN_VALUE, -0x1.8p-127f, 3f, 5f};
    Compressor c = CompressorSpec.parse("natural").create(1);
    double[] mean = meanOf(c, x, 1, CALLS);
    float[] once = ((ValueCompressor) c).compress(x, 1).toDense();
    for (int i = 0; i < 5; i++) {
      assertEquals(Float.floatToRawIntBits(x[i]), Float.floatToRawIntBits(once[i]), "exact input " + x[i]);
    }
    for (int i = 5; i < x.length; i++) {
      double tolerance = 5 * Math.sqrt(naturalVariance(x[i]) / CALLS);
      assertEquals(x[i], mean[i], tolerance, "mean of " + x[i]);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"randomk:scaled", "natural"})
  void nonFiniteAndOutOfRangeInputsAreRefusedWithOneLine(String spec) {
    ValueCompressor c = (ValueCompressor) CompressorSpec.parse(spec).create(1);
    byte[] before = c.saveState();
    for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
      String message = assertThrows(IllegalArgumentException.class,
          () -> c.compress(new float[] {1f, bad, 2f}, 3)).getMessage();
      assertTrue(message.startsWith("x contains 1 non-finite value (NaN or Infinity); first at index 1"), message);
    }
    assertEquals("targetK = 0 is out of range; expected 1 <= targetK <= 3 (the dimension)",
        assertThrows(IllegalArgumentException.class, () -> c.compress(new float[3], 0)).getMessage());
    if (spec.equals("natural")) {
      assertEquals("natural: x[1] = -3.4028235E38 could round up to 2^128, beyond float32; expected |x| <= 2^127 "
          + "(1.7014118E38)", assertThrows(IllegalArgumentException.class,
              () -> c.compress(new float[] {1f, -Float.MAX_VALUE}, 1)).getMessage());
    } else {
      String message = assertThrows(IllegalArgumentException.class,
          () -> c.compress(new float[] {1e38f, 2e38f, 3e38f, 1e38f}, 1)).getMessage();
      assertTrue(message.startsWith("randomk:scaled: d/k * x[") && message.contains("overflows float32"), message);
    }
    assertArrayEquals(before, c.saveState(), "a refused call leaves the state unchanged");
  }

  /**
   * Under error feedback the residual at a sent coordinate is c − sent: for natural compression exactly (Sterbenz),
   * so sent + residual == c bit for bit; for scaled Random-k it is the float subtraction fl(c − sent), off from
   * c by at most half an ulp of the residual. Unsent coordinates keep c bit for bit. The reported residual norm is
   * ‖c − sent‖.
   */
  @ParameterizedTest(name = "{0} feedback={1}")
  @MethodSource("feedbackCases")
  void errorFeedbackKeepsCMinusSent(String spec, boolean enabled) {
    int d = 4_001;
    Compressor compressor = CompressorSpec.parse(spec).create(3);
    ErrorFeedback ef = enabled ? ErrorFeedback.enabled(d) : ErrorFeedback.disabled(d);
    float scale = 0.37f;
    for (int step = 0; step < 8; step++) {
      float[] input = Vectors.heavyTailed(d, step);
      if (step == 3) {
        input[5] = Float.MIN_VALUE; // subnormal c where the residual is still 0
      }
      float[] before = ef.residual();
      float[] c = new float[d];
      for (int i = 0; i < d; i++) {
        c[i] = before[i] + scale * input[i];
      }
      CompressionStep s = ef.step(input, scale, compressor, 40);
      float[] residual = ef.residual();
      float[] sent = s.sent().toDense();
      boolean[] isSent = new boolean[d];
      for (int i : s.sent().indices()) {
        isSent[i] = true;
      }
      double rr = 0;
      for (int i = 0; i < d; i++) {
        if (!enabled) {
          assertEquals(0f, residual[i]);
          continue;
        }
        if (!isSent[i]) {
          assertEquals(Float.floatToRawIntBits(c[i]), Float.floatToRawIntBits(residual[i]), "unsent " + i);
        } else if (spec.equals("natural")) {
          assertEquals((double) c[i] - sent[i], (double) residual[i], 0.0, "residual exact at " + i);
          float sum = sent[i] + residual[i];
          assertTrue(sum == c[i] && (c[i] == 0 || Float.floatToRawIntBits(sum) == Float.floatToRawIntBits(c[i])),
              "sent + residual != c at " + i);
        } else {
          assertEquals(Float.floatToRawIntBits(c[i] - sent[i]), Float.floatToRawIntBits(residual[i]));
          double off = Math.abs((double) sent[i] + residual[i] - c[i]);
          assertTrue(off <= Math.ulp(residual[i]) / 2, "index " + i + " off by " + off);
        }
        double e = (double) c[i] - sent[i];
        rr += e * e;
      }
      if (enabled) {
        assertEquals(Math.sqrt(rr), s.residualNorm(), 1e-6 * Math.sqrt(rr) + 1e-30);
      }
    }
  }

  static Stream<Arguments> feedbackCases() {
    return Stream.of(Arguments.of("natural", true), Arguments.of("randomk:scaled", true),
        Arguments.of("natural", false), Arguments.of("randomk:scaled", false));
  }

  /** A rolled-back step of an unbiased compressor restores the residual, and the redone step repeats the output. */
  @Test
  void rollBackAndRedoRepeatTheStep() {
    int d = 500;
    Compressor c = CompressorSpec.parse("natural").create(4);
    ErrorFeedback ef = ErrorFeedback.enabled(d);
    float[] input = Vectors.gaussian(d, 1);
    ef.step(input, 1f, c, 1);
    float[] residual = ef.residual();
    byte[] state = c.saveState();
    SparseVector first = ef.step(input, 1f, c, 1).sent();
    ef.rollBack();
    c.restoreState(state);
    assertArrayEquals(residual, ef.residual());
    assertEquals(first, ef.step(input, 1f, c, 1).sent());
  }

  private static double[] meanOf(Compressor compressor, float[] x, int k, int calls) {
    double[] sum = new double[x.length];
    for (int n = 0; n < calls; n++) {
      SparseVector out = ((ValueCompressor) compressor).compress(x, k);
      for (int j = 0; j < out.nnz(); j++) {
        sum[out.index(j)] += out.value(j);
      }
    }
    for (int i = 0; i < x.length; i++) {
      sum[i] /= calls;
    }
    return sum;
  }

  /** Plain selection as a value compressor (c's own values), to show the unbiasedness check can fail. */
  private static final class SelectingAsValues implements ValueCompressor {
    private final Compressor selector;

    SelectingAsValues(Compressor selector) {
      this.selector = selector;
    }

    @Override
    public SparseVector compress(float[] x, int targetK) {
      return SparseVector.gather(x, selector.select(x, targetK));
    }
  }
}
