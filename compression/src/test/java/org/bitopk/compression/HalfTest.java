package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HalfTest {

  /** Independent decoding of a half's bit pattern, straight from the IEEE 754 definition, in double. */
  static double referenceValue(int h) {
    int sign = (h >>> 15) & 1;
    int exponent = (h >>> 10) & 0x1f;
    int mantissa = h & 0x3ff;
    double magnitude;
    if (exponent == 0x1f) {
      magnitude = mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
    } else if (exponent == 0) {
      magnitude = Math.scalb((double) mantissa, -24);
    } else {
      magnitude = Math.scalb(1024.0 + mantissa, exponent - 25);
    }
    return sign == 1 ? -magnitude : magnitude;
  }

  /** All 31744 finite non-negative halves in ascending order: element i is the half with bits i. */
  private static final double[] FINITE = new double[0x7c00];

  static {
    for (int h = 0; h < 0x7c00; h++) {
      FINITE[h] = referenceValue(h);
    }
  }

  /** Reference rounding: nearest finite half by search, ties to the even bit pattern, >= 65520 to infinity. */
  static short referenceFromFloat(float f) {
    int sign = Float.floatToRawIntBits(f) < 0 ? 0x8000 : 0;
    double a = Math.abs((double) f);
    if (Double.isNaN(a)) {
      throw new AssertionError("NaN has no reference rounding");
    }
    if (a >= 65520.0) {
      return (short) (sign | 0x7c00);
    }
    int pos = Arrays.binarySearch(FINITE, a);
    int bits;
    if (pos >= 0) {
      bits = pos;
    } else {
      int upper = -pos - 1;
      int lower = upper - 1;
      double dl = a - FINITE[lower];
      double du = upper < FINITE.length ? FINITE[upper] - a : Double.POSITIVE_INFINITY;
      bits = dl < du ? lower : du < dl ? upper : ((lower & 1) == 0 ? lower : upper);
    }
    return (short) (sign | bits);
  }

  @Test
  void everyHalfWidensExactlyAndRoundTrips() {
    for (int h = 0; h < 0x10000; h++) {
      float f = Half.toFloat((short) h);
      double expected = referenceValue(h);
      if (Double.isNaN(expected)) {
        assertTrue(Float.isNaN(f), "half 0x" + Integer.toHexString(h));
        assertTrue(Float.isNaN(Half.toFloat(Half.fromFloat(f))));
      } else {
        assertEquals(expected, (double) f, 0.0, "half 0x" + Integer.toHexString(h));
        assertEquals(h, Half.fromFloat(f) & 0xffff, "round trip of half 0x" + Integer.toHexString(h));
      }
    }
  }

  @Test
  void roundsToNearestEvenLikeTheReference() {
    // Every midpoint between adjacent halves, and one float ulp either side of it: the hard cases for rounding.
    for (int h = 0; h < 0x7c00; h++) {
      double mid = h + 1 < 0x7c00 ? (FINITE[h] + FINITE[h + 1]) / 2 : 65520.0;
      float m = (float) mid; // exact: a midpoint needs only 12 significant bits
      assertEquals(mid, (double) m, 0.0);
      for (float f : new float[] {m, Math.nextDown(m), Math.nextUp(m)}) {
        assertSame(f);
        assertSame(-f);
      }
    }
    // A stride through every float exponent, and a million random bit patterns.
    for (long bits = 0; bits < 0x7f800000L; bits += 4099) {
      assertSame(Float.intBitsToFloat((int) bits));
    }
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < 1_000_000; i++) {
      float f = Float.intBitsToFloat(r.nextInt());
      if (!Float.isNaN(f)) {
        assertSame(f);
      }
    }
    assertEquals(0x7c00, Half.fromFloat(Float.POSITIVE_INFINITY) & 0xffff);
    assertEquals(0xfc00, Half.fromFloat(Float.NEGATIVE_INFINITY) & 0xffff);
    assertTrue(Float.isNaN(Half.toFloat(Half.fromFloat(Float.NaN))));
  }

  @Test
  void relativeErrorIsAtMostTwoToTheMinusElevenInTheNormalRange() {
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 200_000; i++) {
      float f = (float) Math.scalb(1 + r.nextDouble(), r.nextInt(-14, 16));
      if (f > Half.MAX_VALUE) {
        continue;
      }
      double back = Half.toFloat(Half.fromFloat(f));
      if (!(Math.abs(back - f) <= Math.scalb(Math.abs((double) f), -11))) {
        throw new AssertionError("value " + f + " came back as " + back);
      }
    }
  }

  private static void assertSame(float f) {
    int expected = referenceFromFloat(f) & 0xffff;
    int actual = Half.fromFloat(f) & 0xffff;
    if (expected != actual) {
      throw new AssertionError("float " + f + " (0x" + Integer.toHexString(Float.floatToRawIntBits(f))
          + "): expected half 0x" + Integer.toHexString(expected) + " but was 0x" + Integer.toHexString(actual));
    }
  }
}
