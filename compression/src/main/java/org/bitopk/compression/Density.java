package org.bitopk.compression;

/** Converts a density (fraction of coordinates kept) into the k the compressors are asked for. */
public final class Density {

  private Density() {}

  /**
   * {@code k = max(1, floor(density * dimension))}, the rounding of the reference implementations
   * ({@code max(1, int(numel * ratio))}), so that k never exceeds the requested fraction and never drops to 0.
   * A relative slack of 1e-9 absorbs binary representation error, e.g. {@code 0.29 * 100 = 28.999999999999996}
   * gives 29, not 28.
   *
   * @param density in (0, 1]
   * @param dimension at least 1
   * @return k in [1, dimension]
   */
  public static int targetK(double density, int dimension) {
    if (!(density > 0.0 && density <= 1.0)) {
      throw new IllegalArgumentException("density = " + density + " is out of range; expected 0 < density <= 1");
    }
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension = " + dimension + " is out of range; expected dimension >= 1");
    }
    double exact = density * dimension;
    long k = (long) Math.floor(exact * (1 + 1e-9));
    return (int) Math.max(1, Math.min(dimension, k));
  }
}
