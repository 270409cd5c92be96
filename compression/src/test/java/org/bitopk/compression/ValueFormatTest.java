package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The value formats' rounding against references from their definitions, and their wire round trip. */
class ValueFormatTest {

  private static float bits(int b) {
    return Float.intBitsToFloat(b);
  }

  private static int bitsOf(float f) {
    return Float.floatToRawIntBits(f);
  }

  /** Every one of the 65,536 bfloat16 patterns that is finite widens to a float that BF16 rounding keeps. */
  @Test
  void everyFiniteBfloat16IsAFixedPoint() {
    float[] all = new float[0x10000 - 2 * 0x80];
    int n = 0;
    for (int h = 0; h < 0x10000; h++) {
      if ((h & 0x7f80) != 0x7f80) {
        all[n++] = bits(h << 16);
      }
    }
    assertEquals(all.length, n);
    float[] rounded = ValueFormat.BF16.round(all);
    for (int i = 0; i < n; i++) {
      assertEquals(bitsOf(all[i]), bitsOf(rounded[i]), "bf16 pattern of " + all[i]);
    }
  }

  /** Reference: the nearer of the two bfloat16 neighbours by exact double distance, ties to the even pattern. */
  static float referenceBfloat16(float f) {
    int b = bitsOf(f);
    float truncated = bits(b & 0xffff0000);
    double down = truncated;
    // bfloat16 spacing is 2^16 float ulps; past the largest finite value the next step is 2^128, i.e. infinity
    double up = down + Math.copySign(65536.0 * Math.ulp(truncated), f);
    double dd = Math.abs(f - down);
    double du = Math.abs(up - f);
    boolean even = ((b >>> 16) & 1) == 0;
    return dd < du || (dd == du && even) ? truncated : (float) up;
  }

  @Test
  void bfloat16RoundsToNearestEvenLikeTheReference() {
    SplittableRandom r = new SplittableRandom(7);
    float[] x = new float[200_000];
    for (int i = 0; i < x.length; i++) {
      int b;
      do {
        b = r.nextInt();
        if (i % 4 == 0) {
          b = (b & 0xffff0000) | 0x8000; // exact ties
        }
      } while ((b & 0x7f800000) == 0x7f800000);
      x[i] = bits(b);
    }
    float[] rounded = ValueFormat.BF16.round(x);
    for (int i = 0; i < x.length; i++) {
      assertEquals(bitsOf(referenceBfloat16(x[i])), bitsOf(rounded[i]), "bf16 of " + x[i]);
    }
    float[] edges = {Float.MAX_VALUE, -Float.MAX_VALUE, 0x1.fep127f, Float.MIN_VALUE, -0f, 0f, 0x1.0101p0f};
    float[] e = ValueFormat.BF16.round(edges);
    assertEquals(Float.POSITIVE_INFINITY, e[0]);
    assertEquals(Float.NEGATIVE_INFINITY, e[1]);
    assertEquals(0x1.fep127f, e[2]);
    assertEquals(bitsOf(0f), bitsOf(e[3]));
    assertEquals(bitsOf(-0f), bitsOf(e[4]));
    assertEquals(0x1.02p0f, e[6]); // 1 + 2^-8 + 2^-16 rounds up past the tie
  }

  /** Messages for INT8 of very different magnitudes: subnormal, tiny, ordinary, huge. */
  static float[][] int8Messages() {
    SplittableRandom r = new SplittableRandom(3);
    double[] magnitudes = {1e-44, 1e-40, 1e-30, 1e-3, 1, 1e30, 1e37};
    float[][] messages = new float[magnitudes.length * 20][];
    for (int m = 0; m < messages.length; m++) {
      float[] v = new float[1 + r.nextInt(300)];
      for (int i = 0; i < v.length; i++) {
        v[i] = (float) (Vectors.gaussian(r) * magnitudes[m % magnitudes.length]);
      }
      messages[m] = v;
    }
    return messages;
  }

  @Test
  void int8ScaleCodesAndRoundingFollowTheDefinition() {
    for (float[] v : int8Messages()) {
      double max = 0;
      for (float x : v) {
        max = Math.max(max, Math.abs(x));
      }
      float s = ValueFormat.int8Scale(v);
      if (max == 0) {
        assertEquals(0f, s);
        continue;
      }
      assertEquals(0, bitsOf(s) & 0x7f, "17 significant bits: " + s);
      assertTrue(127.0 * s >= max * (1 - 0x1p-23) && 127.0 * s <= max * (1 + 0x1p-15) + 0x1p-142 * 127,
          "scale " + s + " for max " + max);
      float[] rounded = ValueFormat.INT8.round(v);
      for (int i = 0; i < v.length; i++) {
        double q = (double) rounded[i] / s;
        assertEquals(Math.rint(q), q, "an integer multiple of the scale: " + rounded[i]);
        assertTrue(Math.abs(q) <= 127);
        assertTrue(Math.abs((double) v[i] - rounded[i]) <= s / 2.0 * (1 + 0x1p-20), v[i] + " -> " + rounded[i]);
      }
      float[] twice = ValueFormat.INT8.round(rounded);
      for (int i = 0; i < v.length; i++) {
        assertEquals(bitsOf(rounded[i]), bitsOf(twice[i]), "rounding is idempotent");
      }
    }
  }

  /** Each format's encoding decodes to its rounding bit for bit, and already-rounded values travel unchanged. */
  @Test
  void everyFormatDecodesToItsRoundingAndRoundedValuesTravelUnchanged() {
    SplittableRandom r = new SplittableRandom(5);
    for (ValueFormat format : ValueFormat.values()) {
      int m = 0;
      for (float[] values : int8Messages()) {
        int d = values.length + r.nextInt(5000);
        SparseVector v = SparseVector.of(d, RiceIndexCodingTest.uniform(d, values.length, m++), values);
        if (format == ValueFormat.FP16 && !allBelow(values, 65520f)) {
          continue;
        }
        float[] rounded = format.round(values);
        byte[] bytes = SparseCodec.encode(v, format);
        assertEquals(bytes.length, SparseCodec.encodedLength(v, format));
        SparseVector expected = SparseVector.of(d, v.indices(), rounded);
        assertEquals(expected, SparseCodec.decode(bytes), format.toString());
        assertEquals(expected, SparseCodec.decode(SparseCodec.encode(expected, format)), format + " twice");
        long valueBytes = format == ValueFormat.FP32 ? 4L * values.length
            : format == ValueFormat.INT8 ? 4 + values.length : 2L * values.length;
        assertEquals(IndexSizes.header(d, values.length) + IndexSizes.smallest(v.indices(), d) + valueBytes,
            bytes.length, format.toString());
      }
    }
  }

  private static boolean allBelow(float[] values, float limit) {
    for (float v : values) {
      if (!(Math.abs(v) < limit)) {
        return false;
      }
    }
    return true;
  }

  @Test
  void overflowIsRefusedAndCorruptInt8IsRefused() {
    SparseVector huge = SparseVector.of(3, new int[] {0, 2}, new float[] {1f, Float.MAX_VALUE});
    assertEquals("value 3.4028235E38 at index 2 overflows BF16; expected a magnitude below Float.MAX_VALUE by more "
        + "than an ulp, or use FP32",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.encode(huge, ValueFormat.BF16)).getMessage());
    byte[] bytes = SparseCodec.encode(SparseVector.of(3, new int[] {0, 1, 2}, new float[] {1f, -2f, 3.5f}),
        ValueFormat.INT8);
    // B7 0C 01 22 | 03 | 03 | scale (4 bytes) | 3 codes
    assertEquals(4 + 1 + 1 + 4 + 3, bytes.length);
    assertEquals(SparseCodec.FLAG_INT8 | SparseCodec.LAYOUT_DENSE, bytes[3]);
    byte[] minus128 = bytes.clone();
    minus128[10] = (byte) 0x80;
    assertEquals("value[0] at index 0 has INT8 code -128; expected codes in [-127, 127]",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(minus128)).getMessage());
    byte[] nanScale = bytes.clone();
    nanScale[9] = (byte) 0x7f;
    nanScale[8] = (byte) 0xc0;
    assertEquals("INT8 scale is NaN; expected a finite scale >= 0",
        assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(nanScale)).getMessage());
  }
}
