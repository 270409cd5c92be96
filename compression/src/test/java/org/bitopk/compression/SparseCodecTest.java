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

class SparseCodecTest {

  static SparseVector random(int d, double density, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int k = Density.targetK(density, d);
    int[] idx = new RandomKCompressor(seed).select(new float[d], k).indices();
    float[] val = new float[k];
    for (int i = 0; i < k; i++) {
      val[i] = (float) (Vectors.gaussian(r) * Math.pow(10, r.nextInt(-6, 3)));
    }
    return SparseVector.of(d, idx, val);
  }

  static Stream<Arguments> vectors() {
    List<Arguments> cases = new ArrayList<>();
    int[] dims = {1, 9, 1000, 100_003};
    double[] densities = {0.0001, 0.001, 0.01, 0.1, 0.5, 0.97, 1.0};
    for (int d : dims) {
      for (double density : densities) {
        for (ValueFormat format : new ValueFormat[] {ValueFormat.FP32, ValueFormat.FP16}) {
          cases.add(Arguments.of(d, density, format));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "d={0} density={1} {2}")
  @MethodSource("vectors")
  void roundTripsAndPicksTheSmallestLayout(int d, double density, ValueFormat format) {
    SparseVector v = random(d, density, d * 31L + (long) (density * 1e6));
    byte[] bytes = SparseCodec.encode(v, format);
    SparseVector back = SparseCodec.decode(bytes);
    assertEquals(d, back.dimension());
    assertArrayEquals(v.indices(), back.indices());
    if (format == ValueFormat.FP32) {
      assertEquals(v, back, "fp32 must round-trip exactly");
    } else {
      for (int i = 0; i < v.nnz(); i++) {
        float a = v.value(i);
        float b = back.value(i);
        double bound = Math.abs(a) >= 0x1p-14f ? Math.scalb(Math.abs((double) a), -11) : 0x1p-25;
        assertTrue(Math.abs(a - b) <= bound, a + " decoded as " + b);
      }
    }
    // The chosen layout is the smallest of the applicable ones, computed independently here.
    int nnz = v.nnz();
    int[] idx = v.indices();
    long best = IndexSizes.smallest(idx, d);
    long header = IndexSizes.header(d, nnz);
    assertEquals(header + best + (long) nnz * (format == ValueFormat.FP16 ? 2 : 4), bytes.length);
    assertTrue(best <= IndexSizes.withoutRice(idx, d), "never more index bytes than delta or bitmap");
    long delta = IndexSizes.deltaBytes(idx);
    long bitmap = IndexSizes.bitmapBytes(d);
    String expectedLayout = nnz == d ? "dense" : best < Math.min(delta, bitmap) ? "rice"
        : delta <= bitmap ? "delta" : "bitmap";
    assertEquals(expectedLayout, SparseCodec.layoutName(bytes));
  }

  @Test
  void beatsEightBytesPerNonZeroAtDensityOneInAThousand() {
    SparseVector v = random(1_000_000, 0.001, 5);
    assertEquals(1000, v.nnz());
    int fp32 = SparseCodec.encode(v, ValueFormat.FP32).length;
    int fp16 = SparseCodec.encode(v, ValueFormat.FP16).length;
    assertTrue(fp32 < 8 * v.nnz(), "fp32 size " + fp32);
    assertTrue(fp32 <= 6 * v.nnz() + 16, "fp32 size " + fp32); // 2-byte gaps + 4-byte values
    assertTrue(fp16 <= 4 * v.nnz() + 16, "fp16 size " + fp16);
  }

  @Test
  void allThreeLayoutsAreChosen() {
    assertEquals("delta", SparseCodec.layoutName(valid()));
    assertEquals("rice", SparseCodec.layoutName(SparseCodec.encode(random(10_000, 0.01, 1), ValueFormat.FP32)));
    assertEquals("bitmap", SparseCodec.layoutName(SparseCodec.encode(random(10_000, 0.7, 1), ValueFormat.FP32)));
    assertEquals("dense", SparseCodec.layoutName(SparseCodec.encode(random(10_000, 1.0, 1), ValueFormat.FP16)));
    SparseVector empty = SparseVector.of(5, new int[0], new float[0]);
    assertEquals(empty, SparseCodec.decode(SparseCodec.encode(empty, ValueFormat.FP32)));
  }

  /**
   * A layout asked for (how the benchmark measures each one) is written whatever its size, decodes to the same
   * vector, and takes the index bytes counted independently; dense is refused unless every coordinate is stored.
   */
  @Test
  void eachLayoutCanBeAskedForAndRoundTrips() {
    SparseVector v = random(100_003, 0.01, 3);
    long header = IndexSizes.header(v.dimension(), v.nnz()) + 4L * v.nnz();
    Object[][] layouts = {{SparseCodec.LAYOUT_DELTA, "delta", IndexSizes.deltaBytes(v.indices())},
        {SparseCodec.LAYOUT_BITMAP, "bitmap", IndexSizes.bitmapBytes(v.dimension())},
        {SparseCodec.LAYOUT_RICE, "rice", IndexSizes.riceBytes(v.indices())}};
    for (Object[] l : layouts) {
      byte[] bytes = SparseCodec.encode(v, ValueFormat.FP32, (int) l[0]);
      assertEquals(l[1], SparseCodec.layoutName(bytes));
      assertEquals(header + (long) l[2], bytes.length, (String) l[1]);
      assertEquals(v, SparseCodec.decode(bytes), (String) l[1]);
    }
    assertEquals("rice", SparseCodec.layoutName(SparseCodec.encode(v, ValueFormat.FP32)), "the smallest here");
    assertThrows(IllegalArgumentException.class, () -> SparseCodec.encode(v, ValueFormat.FP32,
        SparseCodec.LAYOUT_DENSE));
  }

  @Test
  void fp16OverflowIsRejectedNotClamped() {
    SparseVector ok = SparseVector.of(3, new int[] {0, 2}, new float[] {65504f, -65519.99f});
    assertArrayEquals(new float[] {65504f, -65504f}, SparseCodec.decode(SparseCodec.encode(ok, ValueFormat.FP16))
        .values());
    SparseVector big = SparseVector.of(3, new int[] {0, 2}, new float[] {1f, -65520f});
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SparseCodec.encode(big, ValueFormat.FP16));
    assertEquals("value -65520.0 at index 2 overflows FP16; expected |value| < 65520 (largest half 65504), "
        + "or use FP32", e.getMessage());
  }

  /** A valid encoding of indices {1, 4, 300} in dimension 1000 with FP32 values, for corrupting. */
  private static byte[] valid() {
    return SparseCodec.encode(SparseVector.of(1000, new int[] {1, 4, 300}, new float[] {1f, -2f, 3f}),
        ValueFormat.FP32);
  }

  static Stream<Arguments> corruptions() {
    byte[] v = valid();
    // Layout: B7 0C 01 00 | E8 07 (1000) | 03 (nnz) | 02 03 A8 02 (deltas 2, 3, 296) | 12 value bytes
    assertEquals(4 + 2 + 1 + 4 + 12, v.length);
    List<Arguments> cases = new ArrayList<>();
    cases.add(Arguments.of("empty", new byte[0], "truncated: 0 bytes; expected at least a 6-byte header"));
    cases.add(Arguments.of("bad magic", with(v, 0, 0x50), "bad magic 0x50 0x0C; expected 0xB7 0x0C (not a sparse vector)"));
    cases.add(Arguments.of("bad version", with(v, 2, 9), "unsupported version 9; expected 1"));
    cases.add(Arguments.of("bad layout", with(v, 3, 0x40), "unknown layout byte 0x40; expected index layout 0-3 and at most one value flag: 0x4 FP16, 0x8 power of two, 0x10 BF16, 0x20 INT8"));
    cases.add(Arguments.of("two value flags", with(v, 3, 0x30), "unknown layout byte 0x30; expected index layout 0-3 and at most one value flag: 0x4 FP16, 0x8 power of two, 0x10 BF16, 0x20 INT8"));
    cases.add(Arguments.of("zero dimension", splice(v, 4, 2, new byte[] {0}), "dimension = 0 is out of range; expected dimension >= 1"));
    cases.add(Arguments.of("nnz above dimension", with(with(v, 4, 2), 5, 3), "nnz = 3 is out of range; expected nnz <= dimension 2"));
    cases.add(Arguments.of("truncated values", Arrays.copyOf(v, v.length - 1), "truncated: values need 12 bytes but only 11 remain"));
    cases.add(Arguments.of("truncated header", Arrays.copyOf(v, 6), "truncated: input ends inside nnz at byte 6"));
    cases.add(Arguments.of("trailing bytes", Arrays.copyOf(v, v.length + 2), "2 trailing bytes after the last value; expected exactly 23 bytes"));
    cases.add(Arguments.of("non-increasing index", with(v, 8, 0), "index[1] = 1 is not greater than index[0] = 1; expected strictly increasing indices"));
    cases.add(Arguments.of("index out of range", splice(v, 9, 2, new byte[] {(byte) 0xE4, 0x07}), "index[2] = 1000 is out of range; expected index < 1000 (the dimension)"));
    cases.add(Arguments.of("overlong varint", splice(v, 4, 2, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01}), "dimension varint is longer than 5 bytes at byte 4"));
    cases.add(Arguments.of("NaN value", splice(v, 11, 4, new byte[] {0, 0, (byte) 0xC0, 0x7F}), "value[0] at index 1 is NaN; expected finite values"));
    byte[] bitmap = SparseCodec.encode(SparseVector.of(10, new int[] {0, 3, 4, 5}, new float[] {1, 2, 3, 4}), ValueFormat.FP16);
    assertEquals("bitmap", SparseCodec.layoutName(bitmap));
    // B7 0C 01 05 | 0A | 04 | 39 00 (bits 0,3,4,5) | 8 value bytes
    cases.add(Arguments.of("bitmap count mismatch", with(bitmap, 6, 0x19), "bitmap has 3 bits set; expected nnz = 4"));
    cases.add(Arguments.of("bitmap bit beyond dimension", with(bitmap, 7, 0x04), "bitmap bit 10 is out of range; expected bits < 10 (the dimension)"));
    cases.add(Arguments.of("fp16 infinity", with(bitmap, 9, 0x7c), "value[0] at index 0 is Infinity; expected finite values"));
    byte[] dense = SparseCodec.encode(SparseVector.of(2, new int[] {0, 1}, new float[] {1, 2}), ValueFormat.FP32);
    cases.add(Arguments.of("dense with nnz below dimension", with(dense, 5, 1), "dense layout with nnz = 1; expected nnz == dimension 2"));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corruptions")
  void rejectsCorruptInput(String what, byte[] bytes, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(bytes));
    assertEquals(message, e.getMessage());
  }

  private static byte[] with(byte[] bytes, int position, int value) {
    byte[] copy = bytes.clone();
    copy[position] = (byte) value;
    return copy;
  }

  private static byte[] splice(byte[] bytes, int position, int removed, byte[] inserted) {
    byte[] out = new byte[bytes.length - removed + inserted.length];
    System.arraycopy(bytes, 0, out, 0, position);
    System.arraycopy(inserted, 0, out, position, inserted.length);
    System.arraycopy(bytes, position + removed, out, position + inserted.length, bytes.length - position - removed);
    return out;
  }
}
