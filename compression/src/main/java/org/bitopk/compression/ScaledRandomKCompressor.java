package org.bitopk.compression;

/**
 * {@code randomk:scaled}: the Random-k selection scaled by d/k, C(x) = (d/k)·RandK(x), the unbiased sparsifier of the
 * EF21 / MCM analyses: each coordinate is sent with probability k/d, so E[C(x)] = x, and
 * E‖C(x) − x‖² = (d/k − 1)‖x‖².
 *
 * <p>It selects exactly what {@code randomk} created with the same seed selects (the same per-call generator,
 * {@link CallSeeds#of}(seed, call)), and its state is the same call counter. Each sent value is
 * {@code (float) (x_i * ((double) d / k))}: one rounding to float after a double product, so the compressor is
 * unbiased up to that rounding (relative 2^-24). A product beyond the float range is refused, not sent as infinity.
 */
final class ScaledRandomKCompressor implements ValueCompressor {

  private final long seed;
  private final RandomKCompressor selector;

  ScaledRandomKCompressor(long seed) {
    this.seed = seed;
    this.selector = new RandomKCompressor(seed);
  }

  @Override
  public SparseVector compress(float[] x, int targetK) {
    long calls = selector.calls();
    int[] idx = selector.select(x, targetK).indicesUnsafe();
    double scale = (double) x.length / targetK;
    float[] values = new float[idx.length];
    for (int j = 0; j < idx.length; j++) {
      float v = (float) (x[idx[j]] * scale);
      if (Float.isInfinite(v)) {
        selector.calls(calls); // a call that throws leaves the state unchanged
        throw new IllegalArgumentException("randomk:scaled: d/k * x[" + idx[j] + "] = " + scale + " * " + x[idx[j]]
            + " overflows float32; expected |x| <= " + (Float.MAX_VALUE / scale));
      }
      values[j] = v;
    }
    return SparseVector.trusted(x.length, idx, values);
  }

  /** {seed, calls}, as randomk's but under this compressor's name. */
  @Override
  public byte[] saveState() {
    return CompressorState.write(toString(), seed, selector.calls());
  }

  @Override
  public void restoreState(byte[] state) {
    selector.calls(CompressorState.readCallCounter(state, toString(), seed));
  }

  @Override
  public String toString() {
    return "randomk:scaled";
  }
}
