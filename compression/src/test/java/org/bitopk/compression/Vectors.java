package org.bitopk.compression;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/** Test vectors and brute-force references. */
final class Vectors {

  private Vectors() {}

  static float[] gaussian(int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[d];
    for (int i = 0; i < d; i++) {
      x[i] = (float) gaussian(r);
    }
    return x;
  }

  static double gaussian(SplittableRandom r) {
    // Box-Muller: independent of java.util.Random's nextGaussian.
    double u = 1.0 - r.nextDouble();
    double v = r.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  static float[] laplace(int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[d];
    for (int i = 0; i < d; i++) {
      double e = -Math.log(1.0 - r.nextDouble());
      x[i] = (float) (r.nextBoolean() ? e : -e);
    }
    return x;
  }

  /** Signed gamma(shape, 1) magnitudes (Marsaglia-Tsang, with the shape < 1 boost). */
  static float[] gamma(int d, double shape, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[d];
    for (int i = 0; i < d; i++) {
      double g = gammaSample(r, shape);
      x[i] = (float) (r.nextBoolean() ? g : -g);
    }
    return x;
  }

  private static double gammaSample(SplittableRandom r, double shape) {
    if (shape < 1) {
      return gammaSample(r, shape + 1) * Math.pow(1.0 - r.nextDouble(), 1 / shape);
    }
    double dd = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * dd);
    while (true) {
      double z = gaussian(r);
      double v = 1 + c * z;
      if (v <= 0) {
        continue;
      }
      v = v * v * v;
      double u = 1.0 - r.nextDouble();
      if (Math.log(u) < 0.5 * z * z + dd - dd * v + dd * Math.log(v)) {
        return dd * v;
      }
    }
  }

  /** Student-t-like heavy tail: gaussian / sqrt(uniform). */
  static float[] heavyTailed(int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[d];
    for (int i = 0; i < d; i++) {
      x[i] = (float) (gaussian(r) / Math.sqrt(1e-6 + r.nextDouble()));
    }
    return x;
  }

  /** The brute-force reference: sort all indices by |x| descending, lower index first on ties, keep k, sort. */
  static int[] bruteForceTopK(float[] x, int k) {
    Integer[] order = IntStream.range(0, x.length).boxed().toArray(Integer[]::new);
    Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> -Math.abs(x[i])).thenComparingInt(i -> i));
    int[] top = new int[k];
    for (int i = 0; i < k; i++) {
      top[i] = order[i];
    }
    Arrays.sort(top);
    return top;
  }
}
