package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server's decode-into-sum ({@link SparseSum}: each message decoded into reused buffers, added block by block)
 * against what it replaced: {@link SparseCodec#decode} of each message into a {@link SparseVector}, whose entries are
 * then added into a dense sum in message order, and the union divided by P. Many uplinks with overlapping supports,
 * in every value format and index layout, with the real block and queue sizes and with tiny ones (many blocks, the
 * queue added into the sum several times a round), on one thread and on several; sums bit for bit (float addition
 * is not associative, so this also pins the order of the additions) and the union of the supports.
 */
class SparseSumTest {
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
  void sumsLikeDecodeThenAdd(ValueFormat format, int layout, int d) {
    SplittableRandom random = new SplittableRandom(31L * d + 7L * layout + format.ordinal());
    int workers = 9;
    float[] sum = new float[d];
    List<SparseSum> sums = List.of(new SparseSum(sum), new SparseSum(sum, 1, 64, 37), new SparseSum(sum, 1, 128, 1),
        new SparseSum(sum, 3, 64, 37), new SparseSum(sum, 4, 128, 1));
    for (int round = 0; round < 2; round++) {
      List<byte[]> uplinks = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        uplinks.add(SparseCodec.encode(message(d, random), format, layout));
      }
      float[] expected = new float[d];
      boolean[] touched = new boolean[d];
      for (byte[] bytes : uplinks) {
        SparseVector u = SparseCodec.decode(bytes);
        for (int i = 0; i < u.nnz(); i++) {
          expected[u.index(i)] += u.value(i);
          touched[u.index(i)] = true;
        }
      }
      int[] union = IntStream.range(0, d).filter(j -> touched[j]).toArray();
      float[] mean = expected.clone();
      for (int j : union) {
        mean[j] = mean[j] / workers;
      }
      for (SparseSum s : sums) {
        boolean divide = s != sums.get(1) && s != sums.get(3);
        s.begin();
        for (byte[] bytes : uplinks) {
          assertEquals(SparseCodec.decode(bytes).nnz(), s.add(bytes));
        }
        assertArrayEquals(union, divide ? s.finishMean(workers) : s.finish(), "the union of the supports");
        assertArrayEquals(bits(divide ? mean : expected), bits(sum), "round " + round + ", the sum bit for bit");
      }
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
      support.add(random.nextInt(4) == 0 ? random.nextInt(d) : (int) ((long) random.nextInt(shared) * 37 % d));
    }
    if (random.nextBoolean()) {
      support.add(d - 1); // a long gap after the cluster
    }
    boolean powers = random.nextInt(5) == 0;
    int[] idx = support.stream().mapToInt(Integer::intValue).toArray();
    float[] val = new float[idx.length];
    for (int i = 0; i < idx.length; i++) {
      float magnitude = powers ? (float) Math.scalb(1.0, random.nextInt(-20, 10))
          : (float) (random.nextDouble() * Math.pow(10, random.nextInt(-8, 4)));
      val[i] = random.nextInt(20) == 0 ? 0f : random.nextBoolean() ? magnitude : -magnitude;
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
    byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32, SparseCodec.LAYOUT_RICE);
    assertEquals(v, SparseCodec.decode(bytes));
    float[] sum = new float[d];
    SparseSum s = new SparseSum(sum);
    s.begin();
    s.add(bytes);
    assertArrayEquals(idx, s.finish());
    assertArrayEquals(v.toDense(), sum);
  }

  @Test
  void sumsTheDenseLayout() {
    SparseVector v = SparseVector.of(3, new int[] {0, 1, 2}, new float[] {1f, -0f, 2.5f});
    float[] sum = {7f, 7f, 7f};
    SparseSum s = new SparseSum(sum);
    s.begin();
    s.add(SparseCodec.encode(v, ValueFormat.FP32, SparseCodec.LAYOUT_DENSE));
    assertArrayEquals(new int[] {0, 1, 2}, s.finish());
    assertArrayEquals(bits(new float[] {1f, 0f, 2.5f}), bits(sum), "0 + -0 is +0, as the dense sum gave it");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("org.bitopk.compression.SparseCodecTest#corruptions")
  void refusesWhatDecodeRefusesAndAddsNothingOfIt(String what, byte[] bytes, String message) {
    int d;
    try {
      d = SparseCodec.dimensionOf(bytes);
    } catch (IllegalArgumentException headerDefect) {
      d = 1000;
    }
    float[] sum = new float[d];
    SparseSum s = new SparseSum(sum);
    s.begin();
    s.add(SparseCodec.encode(SparseVector.of(d, new int[] {d - 1}, new float[] {2f}), ValueFormat.FP32));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.add(bytes));
    assertEquals(message, e.getMessage());
    assertArrayEquals(new int[] {d - 1}, s.finish(), "the round goes on without the refused message");
    float[] expected = new float[d];
    expected[d - 1] = 2f;
    assertArrayEquals(expected, sum);
  }

  @Test
  void refusesAMessageOfAnotherDimension() {
    SparseSum s = new SparseSum(new float[10]);
    s.begin();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.add(SparseCodec.encode(
        SparseVector.of(11, new int[] {3}, new float[] {1f}), ValueFormat.FP32)));
    assertEquals("message of dimension 11; expected 10", e.getMessage());
  }

  private static int[] bits(float[] x) {
    int[] out = new int[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = Float.floatToRawIntBits(x[i]);
    }
    return out;
  }
}
