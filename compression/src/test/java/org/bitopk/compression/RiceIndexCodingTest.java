package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The Golomb-Rice index layout: exact, at most 1.15x the entropy floor on uniform sets, never above the others. */
class RiceIndexCodingTest {

  /** log2 C(d, k) as a sum of logs, the reference floor: sum over i < k of log2((d - i) / (k - i)). */
  static double log2Binomial(long d, long k) {
    double sum = 0;
    for (long i = 0; i < k; i++) {
      sum += Math.log((double) (d - i) / (k - i));
    }
    return sum / Math.log(2);
  }

  /** k distinct indices drawn uniformly from [0, d) (Floyd's algorithm), sorted. */
  static int[] uniform(int d, int k, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    java.util.HashSet<Integer> chosen = new java.util.HashSet<>();
    for (int j = d - k; j < d; j++) {
      int t = r.nextInt(j + 1);
      chosen.add(chosen.contains(t) ? j : t);
    }
    return chosen.stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  static SparseVector withValues(int d, int[] idx, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] val = new float[idx.length];
    for (int i = 0; i < val.length; i++) {
      val[i] = (float) Vectors.gaussian(r);
    }
    return SparseVector.of(d, idx, val);
  }

  @Test
  void log2BinomialMatchesLgammaAndSmallCases() {
    assertEquals(Math.log(10) / Math.log(2), log2Binomial(5, 2), 1e-12); // C(5,2) = 10
    assertEquals(Math.log(252) / Math.log(2), log2Binomial(10, 5), 1e-12); // C(10,5) = 252
    double viaLgamma = (SpecialFunctions.logGamma(1_000_001) - SpecialFunctions.logGamma(1001)
        - SpecialFunctions.logGamma(999_001)) / Math.log(2);
    assertEquals(viaLgamma, log2Binomial(1_000_000, 1000), 1e-6 * viaLgamma);
  }

  /** Index bits (parameter byte and padding included) within 1.15x the floor log2 C(d, k) / k, and Rice chosen. */
  @ParameterizedTest(name = "density={0}")
  @ValueSource(doubles = {0.001, 0.01, 0.1})
  void uniformIndexSetsCostAtMostFifteenPercentAboveTheFloor(double density) {
    for (int d : new int[] {242_762, 1_000_000}) {
      for (long seed = 1; seed <= 3; seed++) {
        int k = (int) Math.round(density * d);
        SparseVector v = withValues(d, uniform(d, k, seed * 977 + d), seed);
        byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32);
        long indexBytes = bytes.length - IndexSizes.header(d, k) - 4L * k;
        double bitsPerIndex = indexBytes * 8.0 / k;
        double floor = log2Binomial(d, k) / k;
        assertTrue(bitsPerIndex <= 1.15 * floor, "d=" + d + " k=" + k + ": " + bitsPerIndex
            + " bits an index, floor " + floor);
        assertTrue(indexBytes <= IndexSizes.withoutRice(v.indices(), d));
        assertEquals("rice", SparseCodec.layoutName(bytes));
        assertEquals(v, SparseCodec.decode(bytes));
      }
    }
  }

  static Stream<Arguments> adversarial() {
    List<Arguments> cases = new ArrayList<>();
    int big = Integer.MAX_VALUE;
    cases.add(Arguments.of("k = 1 at 0", 1000, new int[] {0}));
    cases.add(Arguments.of("k = 1 at the end", 1000, new int[] {999}));
    cases.add(Arguments.of("k = 1, d = 2^31 - 1, last index", big, new int[] {big - 1}));
    cases.add(Arguments.of("k = d = 1", 1, new int[] {0}));
    cases.add(Arguments.of("k = d", 777, range(0, 777)));
    cases.add(Arguments.of("k = d - 1", 777, range(1, 777)));
    cases.add(Arguments.of("one cluster", 1_000_000, range(500_000, 501_000)));
    int[] clusters = new int[0];
    for (int c = 0; c < 20; c++) {
      clusters = concat(clusters, range(c * 50_000 + 7, c * 50_000 + 57));
    }
    cases.add(Arguments.of("twenty clusters", 1_000_000, clusters));
    cases.add(Arguments.of("cluster at the end of 2^31 - 1", big, range(big - 3000, big)));
    cases.add(Arguments.of("both ends of 2^31 - 1", big, concat(range(0, 100), range(big - 100, big))));
    int[] spread = new int[2000];
    for (int i = 0; i < spread.length; i++) {
      spread[i] = (int) ((long) i * (big / spread.length)) + 3;
    }
    cases.add(Arguments.of("evenly spread over 2^31 - 1", big, spread));
    cases.add(Arguments.of("uniform over 2^31 - 2", big - 1, uniform(big - 1, 5000, 11)));
    cases.add(Arguments.of("gaps of one and of 2^30", big, new int[] {0, 1, 1 << 30, (1 << 30) + 1, big - 1}));
    return cases.stream();
  }

  static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }

  static int[] concat(int[] a, int[] b) {
    int[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  /** Every layout the encoder may choose round-trips, and the chosen one is the smallest of all four. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("adversarial")
  void adversarialIndexSetsRoundTripInTheSmallestLayout(String what, int d, int[] idx) {
    SparseVector v = withValues(d, idx, idx.length);
    for (ValueFormat format : ValueFormat.values()) {
      byte[] bytes = SparseCodec.encode(v, format);
      SparseVector back = SparseCodec.decode(bytes);
      assertArrayEquals(idx, back.indices(), format.toString());
      assertEquals(bytes.length, SparseCodec.encodedLength(v, format));
    }
    byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32);
    assertEquals(v, SparseCodec.decode(bytes));
    assertEquals(IndexSizes.header(d, idx.length) + IndexSizes.smallest(idx, d) + 4L * idx.length, bytes.length);
  }

  /** The Rice section itself round-trips at every parameter, whether or not the encoder would pick it. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("adversarial")
  void riceSectionRoundTripsAtEveryParameter(String what, int d, int[] idx) {
    for (int b = 0; b <= RiceGaps.MAX_PARAMETER; b++) {
      long size = RiceGaps.bytes(idx, b);
      if (size > 1 << 24) {
        continue; // a parameter far too small for 2^31-wide gaps: hundreds of megabytes of unary code
      }
      byte[] out = new byte[(int) size + 3];
      int end = RiceGaps.write(out, 3, idx, b);
      assertEquals(3 + size, end, "b=" + b);
      int[] back = new int[idx.length];
      assertEquals(end, RiceGaps.read(Arrays.copyOf(out, end), 3, d, back), "b=" + b);
      assertArrayEquals(idx, back, "b=" + b);
    }
    assertEquals(IndexSizes.riceBytes(idx), RiceGaps.bytes(idx, RiceGaps.parameter(idx)), "optimal parameter");
  }

  /** Random sets of every density from the codec tests' generator, with every format: exact and never larger. */
  @Test
  void fuzzedVectorsRoundTripAndNeverGrow() {
    SplittableRandom r = new SplittableRandom(42);
    for (int trial = 0; trial < 300; trial++) {
      int d = 1 + r.nextInt(trial < 200 ? 5000 : 300_000);
      double density = Math.pow(10, -4 * r.nextDouble());
      SparseVector v = SparseCodecTest.random(d, density, trial);
      byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32);
      assertEquals(v, SparseCodec.decode(bytes), "trial " + trial);
      long today = IndexSizes.header(d, v.nnz()) + IndexSizes.withoutRice(v.indices(), d) + 4L * v.nnz();
      assertTrue(bytes.length <= today, "trial " + trial + ": " + bytes.length + " > " + today);
      assertEquals(IndexSizes.header(d, v.nnz()) + IndexSizes.smallest(v.indices(), d) + 4L * v.nnz(),
          bytes.length);
    }
  }

  /** Indices 10 to 59 in dimension 100 (Rice: 9 bytes; bitmap 13; delta 50) with fp32 values, for corrupting. */
  private static byte[] rice() {
    float[] values = new float[50];
    Arrays.fill(values, 1.5f);
    byte[] bytes = SparseCodec.encode(SparseVector.of(100, range(10, 60), values), ValueFormat.FP32);
    assertEquals("rice", SparseCodec.layoutName(bytes));
    return bytes;
  }

  @Test
  void corruptRiceSectionsAreRefused() {
    byte[] v = rice();
    // B7 0C 01 03 | 64 (d = 100) | 32 (nnz = 50) | parameter 0 | codes: 10 ones, a zero, 49 zeros, 4 padding bits
    int parameterAt = 6;
    assertEquals(0, v[parameterAt]);
    byte[] badParameter = v.clone();
    badParameter[parameterAt] = 31;
    assertEquals("Rice parameter 31 is out of range; expected 0 to 30",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(badParameter)).getMessage());
    byte[] outOfRange = v.clone();
    outOfRange[parameterAt] = 7; // the first gap becomes 1 + 127 + ...: beyond d = 100
    assertTrue(assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(outOfRange)).getMessage()
        .matches("index\\[0\\] = \\d+ is out of range; expected index < 100 \\(the dimension\\)"));
    byte[] truncated = Arrays.copyOf(v, parameterAt + 2);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(truncated)).getMessage()
        .startsWith("truncated: "));
    int codesEnd = v.length - 4 * 50;
    byte[] padding = v.clone();
    padding[codesEnd - 1] |= (byte) 0x80;
    assertEquals("Rice padding bits after the last index are not zero; expected zero padding",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(padding)).getMessage());
  }
}
