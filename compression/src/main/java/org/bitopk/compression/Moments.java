package org.bitopk.compression;

/**
 * Streaming sums for the threshold estimators. Each loop keeps four independent double accumulators per sum, so
 * additions overlap in the pipeline instead of waiting on one another (a single accumulator is bound by the 4-cycle
 * floating-point add latency, over 1 ns per element); doubles keep the sums of millions of floats accurate.
 */
final class Moments {

  private Moments() {}

  /** {sum x, sum x²} over all of x. Non-finite input makes a sum non-finite. */
  static double[] sumAndSumOfSquares(float[] x) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    double q0 = 0, q1 = 0, q2 = 0, q3 = 0;
    int d = x.length;
    int i = 0;
    for (; i + 3 < d; i += 4) {
      double a = x[i], b = x[i + 1], c = x[i + 2], e = x[i + 3];
      s0 += a;
      s1 += b;
      s2 += c;
      s3 += e;
      q0 += a * a;
      q1 += b * b;
      q2 += c * c;
      q3 += e * e;
    }
    for (; i < d; i++) {
      double a = x[i];
      s0 += a;
      q0 += a * a;
    }
    return new double[] {(s0 + s1) + (s2 + s3), (q0 + q1) + (q2 + q3)};
  }

  /** {sum |x|, sum x²} over all of x. */
  static double[] absSumAndSumOfSquares(float[] x) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    double q0 = 0, q1 = 0, q2 = 0, q3 = 0;
    int d = x.length;
    int i = 0;
    for (; i + 3 < d; i += 4) {
      double a = Math.abs(x[i]), b = Math.abs(x[i + 1]), c = Math.abs(x[i + 2]), e = Math.abs(x[i + 3]);
      s0 += a;
      s1 += b;
      s2 += c;
      s3 += e;
      q0 += a * a;
      q1 += b * b;
      q2 += c * c;
      q3 += e * e;
    }
    for (; i < d; i++) {
      double a = Math.abs(x[i]);
      s0 += a;
      q0 += a * a;
    }
    return new double[] {(s0 + s1) + (s2 + s3), (q0 + q1) + (q2 + q3)};
  }

  /**
   * {sum |x|, sum ln |x| over the non-zero entries, number of zero entries, sum x²}: everything the gamma fit needs,
   * in one pass. Zeros (and subnormals, treated as the smallest normal float) get their logarithm afterwards, once
   * the norm is known: see {@link SidcoCompressor}.
   */
  static double[] absSumLogSumZerosSquares(float[] x) {
    double s0 = 0, s1 = 0;
    double l0 = 0, l1 = 0;
    double q0 = 0, q1 = 0;
    long zeros = 0;
    int d = x.length;
    int i = 0;
    for (; i + 1 < d; i += 2) {
      float a = Math.abs(x[i]);
      float b = Math.abs(x[i + 1]);
      s0 += a;
      s1 += b;
      q0 += (double) a * a;
      q1 += (double) b * b;
      zeros += (Float.floatToRawIntBits(a) - 1) >>> 31; // 1 iff a == +0
      zeros += (Float.floatToRawIntBits(b) - 1) >>> 31;
      l0 += FastLog.log(Math.max(a, Float.MIN_NORMAL));
      l1 += FastLog.log(Math.max(b, Float.MIN_NORMAL));
    }
    for (; i < d; i++) {
      float a = Math.abs(x[i]);
      s0 += a;
      q0 += (double) a * a;
      zeros += (Float.floatToRawIntBits(a) - 1) >>> 31;
      l0 += FastLog.log(Math.max(a, Float.MIN_NORMAL));
    }
    return new double[] {s0 + s1, l0 + l1, zeros, q0 + q1};
  }

  /**
   * Statistics of the survivors {a = |x| > eta}: {count, sum (a - eta), sum (a - eta)², min a}, computed without a
   * data-dependent branch (a 25% survivor rate would mispredict constantly): a 0/1 mask from the sign of an integer
   * difference of the magnitude bit patterns, which order like the magnitudes.
   */
  static double[] survivorStats(float[] x, float eta) {
    int etaBits = Float.floatToRawIntBits(eta);
    long count = 0;
    double s0 = 0, s1 = 0;
    double q0 = 0, q1 = 0;
    int minBits = Integer.MAX_VALUE;
    int d = x.length;
    int i = 0;
    for (; i + 1 < d; i += 2) {
      int ba = Float.floatToRawIntBits(x[i]) & 0x7fffffff;
      int bb = Float.floatToRawIntBits(x[i + 1]) & 0x7fffffff;
      int ma = (etaBits - ba) >>> 31; // 1 iff |x| > eta
      int mb = (etaBits - bb) >>> 31;
      count += ma + mb;
      double ya = (Float.intBitsToFloat(ba) - (double) eta) * ma;
      double yb = (Float.intBitsToFloat(bb) - (double) eta) * mb;
      s0 += ya;
      s1 += yb;
      q0 += ya * ya;
      q1 += yb * yb;
      minBits = Math.min(minBits, Math.min(ba | ((ma - 1) & 0x7fffffff), bb | ((mb - 1) & 0x7fffffff)));
    }
    for (; i < d; i++) {
      int ba = Float.floatToRawIntBits(x[i]) & 0x7fffffff;
      int ma = (etaBits - ba) >>> 31;
      count += ma;
      double ya = (Float.intBitsToFloat(ba) - (double) eta) * ma;
      s0 += ya;
      q0 += ya * ya;
      minBits = Math.min(minBits, ba | ((ma - 1) & 0x7fffffff));
    }
    return new double[] {count, s0 + s1, q0 + q1, count == 0 ? Double.NaN : Float.intBitsToFloat(minBits)};
  }
}
