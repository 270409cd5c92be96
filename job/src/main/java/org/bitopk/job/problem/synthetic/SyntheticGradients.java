package org.bitopk.job.problem.synthetic;

import java.io.Serializable;
import java.util.SplittableRandom;

/**
 * The gradients of the synthetic-gradient problem: g_{i,t}, a function of the seed, worker i and round t only (a
 * retried or speculative task attempt computes the very same vector), one pass over d to write.
 *
 * <p>Each round has a permutation π_t(n) = (a_t·n + b_t) mod d of the coordinates (a_t coprime to d, both drawn
 * from the seed and t). The slots n of round t are dealt out: slots [0, s) to every worker (s = round(overlap·k),
 * the shared coordinates), then k − s slots to each worker in turn (worker i gets [s + i(k − s), s + (i+1)(k − s))).
 * Worker i's gradient is ±(1 + u) on its k coordinates π_t(slot), u uniform in [0, 1) (the shared ones carry the
 * same value for every worker), and (−1)^t·noise·u_{i,j} on every other coordinate j, u_{i,j} in [0, 1) fixed per
 * worker and coordinate. While s + P(k − s) ≤ d the private coordinates of different workers are disjoint, so the
 * union of a round's supports has exactly s + P(k − s) coordinates.
 *
 * <p>Why TopK picks exactly those k coordinates under error feedback (c = e + lr_t·g with no momentum and a
 * non-increasing lr): a small entry's sign alternates from round to round with a fixed magnitude, so the residual it
 * builds since the coordinate was last sent is a partial sum of an alternating series with non-increasing terms and
 * never exceeds lr_max·noise, while a large entry is at least lr_t − lr_max·noise. The large ones win while
 * noise < lr_t / (2·lr_max): with a constant lr any noise below ½, with the default 0.001 any decay down to 1/500.
 */
public final class SyntheticGradients implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;
  private static final int SHARED = -1;

  private final int dimension;
  private final int workers;
  private final int k;
  private final int shared;
  private final float noise;
  private final long seed;

  /**
   * @param k large entries per worker and round (the run's uplink k), in [1, d]
   */
  public SyntheticGradients(SyntheticGradientSetting setting, int workers, int k, long seed) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1, got " + workers);
    }
    if (k < 1 || k > setting.dimension()) {
      throw new IllegalArgumentException("k must be in [1, d = " + setting.dimension() + "], got " + k);
    }
    this.dimension = setting.dimension();
    this.workers = workers;
    this.k = k;
    this.shared = setting.sharedCount(k);
    this.noise = (float) setting.noise();
    this.seed = seed;
  }

  public int dimension() {
    return dimension;
  }

  public int k() {
    return k;
  }

  /** Coordinates every worker's support holds in a round. */
  public int sharedCount() {
    return shared;
  }

  /** The coordinates of a round's supports together: s + P(k − s), when that is at most d. */
  public long unionSize() {
    return Math.min(dimension, shared + (long) workers * (k - shared));
  }

  /** Worker i's k large coordinates in round t, in slot order (shared slots first). */
  public int[] support(int worker, long round) {
    requireWorker(worker);
    long[] permutation = permutation(round);
    int[] out = new int[k];
    for (int m = 0; m < k; m++) {
      out[m] = position(permutation, slot(worker, m));
    }
    return out;
  }

  /** The values at {@link #support}, in the same order. */
  public float[] largeValues(int worker, long round) {
    requireWorker(worker);
    float[] out = new float[k];
    for (int m = 0; m < k; m++) {
      out[m] = largeValue(worker, round, m);
    }
    return out;
  }

  /**
   * Writes g_{i,t} into {@code gradient} and returns ⟨g_{i,t}, x⟩, the loss of the linear objective whose gradient
   * it is.
   */
  public double write(int worker, long round, float[] x, float[] gradient) {
    requireWorker(worker);
    float small = (round & 1) == 0 ? noise : -noise;
    long base = mix(seed ^ (worker + 1) * GOLDEN);
    double loss = 0;
    for (int j = 0; j < dimension; j++) {
      float g = small * unit(mix(base + j * GOLDEN));
      gradient[j] = g;
      loss += (double) g * x[j];
    }
    long[] permutation = permutation(round);
    for (int m = 0; m < k; m++) {
      int j = position(permutation, slot(worker, m));
      float g = largeValue(worker, round, m);
      loss += ((double) g - gradient[j]) * x[j];
      gradient[j] = g;
    }
    return loss;
  }

  /** Slot of worker i's m-th large entry: the shared slots first, then its own. */
  private long slot(int worker, int m) {
    return m < shared ? m : shared + (long) worker * (k - shared) + (m - shared);
  }

  private float largeValue(int worker, long round, int m) {
    int owner = m < shared ? SHARED : worker;
    long h = mix(mix(seed + round * GOLDEN) ^ mix((owner + 2L) * GOLDEN + slot(worker, m)));
    float magnitude = 1f + unit(h);
    return (h & 1) == 0 ? magnitude : -magnitude;
  }

  /** (a_t, b_t) of round t's permutation, a_t coprime to d. */
  private long[] permutation(long round) {
    SplittableRandom random = new SplittableRandom(mix(seed * 31 + round) ^ GOLDEN);
    long a = 1;
    if (dimension > 2) {
      do {
        a = 1 + random.nextLong(dimension - 1);
      } while (gcd(a, dimension) != 1);
    }
    return new long[] {a, random.nextLong(dimension)};
  }

  private int position(long[] permutation, long slot) {
    return (int) ((permutation[0] * (slot % dimension) + permutation[1]) % dimension);
  }

  private void requireWorker(int worker) {
    if (worker < 0 || worker >= workers) {
      throw new IllegalArgumentException("worker " + worker + " is not in [0, " + workers + ")");
    }
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  /** A uniform float in [0, 1) from the top 24 bits. */
  private static float unit(long h) {
    return (h >>> 40) * 0x1.0p-24f;
  }

  /** SplitMix64's finaliser: a cheap bijective mix of 64 bits. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
