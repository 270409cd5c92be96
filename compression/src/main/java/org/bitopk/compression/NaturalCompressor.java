package org.bitopk.compression;

import java.util.SplittableRandom;

/**
 * {@code natural}: natural compression (Horváth, Ho, Horváth, Sahu, Canini, Richtárik, "Natural Compression for
 * Distributed Deep Learning", 2019). Every coordinate is rounded at random to one of the two powers of two around it,
 * up with probability {@code (|x| − 2^e) / 2^e} for {@code 2^e <= |x| < 2^(e+1)}, so E[C(x)] = x exactly, and the
 * variance is at most {@code ‖x‖²/8} (the worst case is |x| = 4/3·2^e). The result is dense but each entry is a
 * sign and an exponent: 9 bits on the wire ({@link SparseCodec}'s power-of-two values).
 *
 * <p>In float32 the rule is exact integer arithmetic on the bit pattern: with m the 23 mantissa bits of x and u a
 * uniform 23-bit integer, C(x) keeps the sign and exponent of x, clears the mantissa, and adds one to the exponent
 * iff {@code u < m}. P(up) = m / 2^23 is exactly the ratio above, so no rounding enters the mean. The same rule,
 * applied to a subnormal x (exponent field 0), rounds between 0 and 2^-126, the smallest normal power of two: still
 * unbiased, but for such an entry the variance is {@code |x|·(2^-126 − |x|) <= 2^-254}, not bounded by x²/8 (the
 * subnormal powers of two below 2^-126 have no 8-bit exponent code). Exact powers of two and ±0 are sent unchanged.
 * |x| > 2^127 is refused: it could round up to 2^128, beyond float32. NaN and infinities are refused as by every
 * compressor.
 *
 * <p>Because C(x) and x are within a factor of two of each other with the same sign, {@code x − C(x)} is exact in
 * float (Sterbenz), so error feedback keeps {@code sent + residual == c} exactly.
 *
 * <p>targetK is validated but does not change the output: every coordinate is sent. Call i draws from
 * {@code new SplittableRandom(CallSeeds.of(seed, i))}, 32 bits per coordinate in index order, of which the top 23
 * are u; the saved state is the call counter.
 */
final class NaturalCompressor implements ValueCompressor {

  /** Bit pattern of 2^127, the largest power of two whose upper neighbour is still a float. */
  private static final int MAX_KEY = 0x7f000000;

  private final long seed;
  private long calls;

  NaturalCompressor(long seed) {
    this.seed = seed;
  }

  @Override
  public SparseVector compress(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    int d = x.length;
    int maxKey = 0;
    for (float v : x) {
      maxKey = Math.max(maxKey, Float.floatToRawIntBits(v) & 0x7fffffff);
    }
    if (maxKey >= 0x7f800000) {
      throw Checks.nonFinite("x", x);
    }
    if (maxKey > MAX_KEY) {
      int i = 0;
      while ((Float.floatToRawIntBits(x[i]) & 0x7fffffff) <= MAX_KEY) {
        i++;
      }
      throw new IllegalArgumentException("natural: x[" + i + "] = " + x[i] + " could round up to 2^128, beyond "
          + "float32; expected |x| <= 2^127 (" + Float.intBitsToFloat(MAX_KEY) + ")");
    }
    SplittableRandom random = new SplittableRandom(CallSeeds.of(seed, calls));
    float[] values = new float[d];
    for (int i = 0; i < d; i++) {
      int bits = Float.floatToRawIntBits(x[i]);
      int mantissa = bits & 0x007fffff;
      int u = random.nextInt() >>> 9;
      values[i] = Float.intBitsToFloat((bits & 0xff800000) + (u < mantissa ? 0x00800000 : 0));
    }
    calls++;
    return SparseVector.trusted(d, RadixSelect.iota(d), values);
  }

  /** {seed, calls}: the seed only to refuse a state saved with another one. */
  @Override
  public byte[] saveState() {
    return CompressorState.write(toString(), seed, calls);
  }

  @Override
  public void restoreState(byte[] state) {
    calls = CompressorState.readCallCounter(state, toString(), seed);
  }

  @Override
  public String toString() {
    return "natural";
  }
}
