package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server's decode-into-sum ({@link SparseDecoder}: one message after the other into reused buffers, added into
 * the dense sum) against what it replaced: {@link SparseCodec#decode} of each message into a {@link SparseVector},
 * whose entries are then added into the sum in worker order. Many uplinks with overlapping supports a round, in every
 * value format and every index layout; the sums must agree bit for bit (float addition is not associative, so this
 * also pins the order of the additions), the union bitmap must be the union of the supports.
 */
class SparseDecoderTest {
  private static final int[] LAYOUTS = {SparseCodec.LAYOUT_DELTA, SparseCodec.LAYOUT_BITMAP, SparseCodec.LAYOUT_RICE};

  static Stream<Arguments> rounds() {
    List<Arguments> cases = new ArrayList<>();
    for (ValueFormat format : ValueFormat.values()) {
      for (int layout : LAYOUTS) {
        for (int d : new int[] {1, 70, 5_000, 200_003}) {
          cases.add(Arguments.of(format, layout, d));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} layout {1} d={2}")
  @MethodSource("rounds")
  void addsLikeDecodeThenAdd(ValueFormat format, int layout, int d) {
    SplittableRandom random = new SplittableRandom(31L * d + 7L * layout + format.ordinal());
    int workers = 9;
    List<byte[]> uplinks = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      uplinks.add(SparseCodec.encode(message(d, random), format, layout));
    }
    float[] expected = new float[d];
    boolean[] expectedUnion = new boolean[d];
    for (byte[] bytes : uplinks) {
      SparseVector u = SparseCodec.decode(bytes);
      for (int i = 0; i < u.nnz(); i++) {
        expected[u.index(i)] += u.value(i);
        expectedUnion[u.index(i)] = true;
      }
    }
    SparseDecoder decoder = new SparseDecoder();
    float[] sum = new float[d];
    long[] marks = new long[(d + 63) / 64];
    for (byte[] bytes : uplinks) {
      int nnz = decoder.decode(bytes);
      assertEquals(SparseCodec.decode(bytes), decoder.vector());
      assertEquals(SparseCodec.decode(bytes).nnz(), nnz);
      assertEquals(d, decoder.dimension());
      decoder.addTo(sum, marks);
    }
    assertArrayEquals(bits(expected), bits(sum), "the sum, bit for bit");
    for (int j = 0; j < d; j++) {
      assertEquals(expectedUnion[j], (marks[j >>> 6] >>> (j & 63) & 1) == 1, "union at " + j);
    }
  }

  /**
   * A worker's message: a shared pool of coordinates that several workers pick (overlapping supports), a few of its
   * own, clusters and long gaps (Rice codes longer than a 64-bit word), values over many magnitudes and signs,
   * zeros among them, and now and then all values powers of two (the 9-bit value layout).
   */
  private static SparseVector message(int d, SplittableRandom random) {
    TreeSet<Integer> support = new TreeSet<>();
    int shared = Math.max(1, d / 50);
    int nnz = 1 + random.nextInt(Math.max(1, d / 10));
    for (int m = 0; m < nnz; m++) {
      int j = random.nextInt(4) == 0 ? random.nextInt(d) : (int) ((long) random.nextInt(shared) * 37 % d);
      support.add(j);
    }
    if (random.nextBoolean()) {
      support.add(d - 1); // a long gap after the cluster
    }
    boolean powers = random.nextInt(5) == 0;
    int[] idx = support.stream().mapToInt(Integer::intValue).toArray();
    float[] val = new float[idx.length];
    for (int i = 0; i < idx.length; i++) {
      int kind = random.nextInt(20);
      float magnitude = powers ? (float) Math.scalb(1.0, random.nextInt(-20, 10))
          : (float) (random.nextDouble() * Math.pow(10, random.nextInt(-8, 4)));
      val[i] = kind == 0 ? 0f : random.nextBoolean() ? magnitude : -magnitude;
    }
    return SparseVector.of(d, idx, val);
  }

  @Test
  void readsRiceCodesLongerThanAWordAndNearTheEnd() {
    int d = 1 << 20;
    int[] idx = {0, 1, 2, 3, 5, 8, 13, 21, 1000, 70_000, d - 2, d - 1};
    float[] val = new float[idx.length];
    for (int i = 0; i < idx.length; i++) {
      val[i] = i - 5.5f;
    }
    SparseVector v = SparseVector.of(d, idx, val);
    SparseDecoder decoder = new SparseDecoder();
    decoder.decode(SparseCodec.encode(v, ValueFormat.FP32, SparseCodec.LAYOUT_RICE));
    assertEquals(v, decoder.vector());
  }

  @Test
  void decodesTheDenseLayout() {
    SparseVector v = SparseVector.of(3, new int[] {0, 1, 2}, new float[] {1f, -0f, 2.5f});
    SparseDecoder decoder = new SparseDecoder();
    decoder.decode(SparseCodec.encode(v, ValueFormat.FP32, SparseCodec.LAYOUT_DENSE));
    assertEquals(v, decoder.vector());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("org.bitopk.compression.SparseCodecTest#corruptions")
  void refusesWhatDecodeRefusesAndAddsNothing(String what, byte[] bytes, String message) {
    SparseDecoder decoder = new SparseDecoder();
    decoder.decode(SparseCodec.encode(SparseVector.of(1000, new int[] {7}, new float[] {2f}), ValueFormat.FP32));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decoder.decode(bytes));
    assertEquals(message, e.getMessage());
    assertEquals(0, decoder.nnz());
    float[] sum = new float[decoder.dimension()];
    long[] marks = new long[(sum.length + 63) / 64];
    decoder.addTo(sum, marks);
    assertArrayEquals(new float[sum.length], sum, "a refused message adds nothing");
    assertArrayEquals(new long[marks.length], marks);
  }

  private static int[] bits(float[] x) {
    int[] out = new int[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = Float.floatToRawIntBits(x[i]);
    }
    return out;
  }
}
