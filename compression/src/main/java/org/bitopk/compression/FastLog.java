package org.bitopk.compression;

/**
 * Natural logarithm of a positive normal float by table lookup: exponent times ln 2 plus ln of the mantissa's top 12
 * bits, taken at the middle of each mantissa interval. Absolute error below 2^-13 per value (the table is in float, adding under 1e-7), and nearly unbiased
 * over many values; SIDCo's gamma fit needs only the mean of ln|x| over millions of coordinates, for which
 * {@link Math#log} (tens of nanoseconds) would dominate the whole compressor.
 */
final class FastLog {

  private static final int MANTISSA_BITS = 12;
  static final double LN2 = Math.log(2);
  private static final float[] MANTISSA_LOG = new float[1 << MANTISSA_BITS];

  static {
    for (int j = 0; j < MANTISSA_LOG.length; j++) {
      // Mean of ln over the interval [1 + j/4096, 1 + (j+1)/4096): midpoint evaluation, error O(4096^-2).
      MANTISSA_LOG[j] = (float) Math.log1p((j + 0.5) / MANTISSA_LOG.length);
    }
  }

  private FastLog() {}

  /** ln(v) for a positive normal float v (subnormals are treated as their exponent bits say: use v >= 2^-126). */
  static double log(float v) {
    int bits = Float.floatToRawIntBits(v);
    int exponent = (bits >>> 23) - 127;
    return exponent * LN2 + MANTISSA_LOG[(bits >>> (23 - MANTISSA_BITS)) & ((1 << MANTISSA_BITS) - 1)];
  }

  /** ln of the mantissa of a positive normal float's bits: ln(v) = ((bits >>> 23) - 127)·ln 2 + this. */
  static float mantissaLog(int bits) {
    return MANTISSA_LOG[(bits >>> (23 - MANTISSA_BITS)) & ((1 << MANTISSA_BITS) - 1)];
  }
}
