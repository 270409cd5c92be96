package org.bitopk.compression;

/**
 * IEEE 754 binary16 conversions ({@code Float.floatToFloat16} only exists from Java 20). Rounding is to nearest,
 * ties to even, the IEEE default, so the result equals what the hardware conversion would give.
 */
final class Half {

  /** Largest finite half, 65504. */
  static final float MAX_VALUE = 65504f;

  private Half() {}

  /** Exact widening of a half (low 16 bits of {@code h}) to float. */
  static float toFloat(short h) {
    int bits = h & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int exponent = (bits >>> 10) & 0x1f;
    int mantissa = bits & 0x3ff;
    if (exponent == 0x1f) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
    }
    if (exponent == 0) {
      // Subnormal half: mantissa * 2^-24, exact in float.
      float magnitude = mantissa * 0x1p-24f;
      return sign == 0 ? magnitude : -magnitude;
    }
    return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }

  /** Rounds a float to the nearest half, ties to even; overflow gives infinity, NaN stays NaN. */
  static short fromFloat(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    int abs = bits & 0x7fffffff;
    if (abs >= 0x7f800000) {
      // Inf stays Inf; NaN keeps the top mantissa bits and stays quiet.
      return (short) (sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 | ((abs >>> 13) & 0x3ff) : 0));
    }
    if (abs >= 0x477ff000) {
      // >= 65520 = 65504 + half an ulp: rounds to infinity.
      return (short) (sign | 0x7c00);
    }
    if (abs >= 0x38800000) {
      // Normal half range: rebias the exponent, round the low 13 mantissa bits to nearest even.
      int rounded = abs - 0x38000000; // exponent 127 -> 15 bias change (112 << 23)
      int lsb = (rounded >>> 13) & 1;
      rounded += 0xfff + lsb;
      return (short) (sign | (rounded >>> 13));
    }
    if (abs < 0x33000000) {
      // Below 2^-25 (half of the smallest subnormal): rounds to zero; exactly 2^-25 is a tie to even zero.
      return (short) sign;
    }
    // Subnormal half: value = m * 2^-24 with m in [0, 1024]; shift the full significand into place.
    int exponent = abs >>> 23;
    int significand = (abs & 0x7fffff) | 0x800000;
    int shift = 126 - exponent; // 113 - exponent + 13
    int m = significand >>> shift;
    int remainder = significand & ((1 << shift) - 1);
    int halfway = 1 << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (m & 1) != 0)) {
      m++;
    }
    return (short) (sign | m);
  }
}
