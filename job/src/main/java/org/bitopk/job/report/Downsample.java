package org.bitopk.job.report;

/**
 * Reduces a long per-iteration column to at most a few hundred points by averaging consecutive buckets,
 * so a chart of a 100,000-iteration run stays readable and quick to draw (one pixel cannot show more).
 */
final class Downsample {

  private Downsample() {}

  /**
   * Bucket means of {@code values}: {@code ceil(n / maxPoints)} consecutive values per bucket, NaN values
   * ignored (a bucket of only NaN stays NaN). Returns the input unchanged when it already fits.
   */
  static double[] mean(double[] values, int maxPoints) {
    if (maxPoints < 1) {
      throw new IllegalArgumentException("maxPoints must be >= 1, got " + maxPoints);
    }
    int width = bucketWidth(values.length, maxPoints);
    if (width == 1) {
      return values.clone();
    }
    int buckets = (values.length + width - 1) / width;
    double[] out = new double[buckets];
    for (int b = 0; b < buckets; b++) {
      double sum = 0;
      int count = 0;
      for (int i = b * width; i < Math.min(values.length, (b + 1) * width); i++) {
        if (!Double.isNaN(values[i])) {
          sum += values[i];
          count++;
        }
      }
      out[b] = count == 0 ? Double.NaN : sum / count;
    }
    return out;
  }

  /** The last value of each bucket (for cumulative columns, where a mean would lag behind). */
  static double[] last(double[] values, int maxPoints) {
    if (maxPoints < 1) {
      throw new IllegalArgumentException("maxPoints must be >= 1, got " + maxPoints);
    }
    int width = bucketWidth(values.length, maxPoints);
    if (width == 1) {
      return values.clone();
    }
    int buckets = (values.length + width - 1) / width;
    double[] out = new double[buckets];
    for (int b = 0; b < buckets; b++) {
      out[b] = values[Math.min(values.length, (b + 1) * width) - 1];
    }
    return out;
  }

  /**
   * A per-iteration series reduced to at most {@code maxPoints} buckets (means, or each bucket's last point
   * for cumulative columns) plus the exact first and last points, so the line spans the run's true first
   * and last iteration.
   *
   * @return {x, y}
   */
  static double[][] series(double[] x, double[] y, int maxPoints, boolean cumulative) {
    if (x.length != y.length) {
      throw new IllegalArgumentException("x has " + x.length + " values, y has " + y.length);
    }
    if (bucketWidth(x.length, maxPoints) == 1) {
      return new double[][] {x.clone(), y.clone()};
    }
    double[] bx = cumulative ? last(x, maxPoints) : mean(x, maxPoints);
    double[] by = cumulative ? last(y, maxPoints) : mean(y, maxPoints);
    boolean addLast = !cumulative;   // the last bucket of a cumulative series already ends at the last point
    int n = bx.length + 1 + (addLast ? 1 : 0);
    double[] ox = new double[n];
    double[] oy = new double[n];
    ox[0] = x[0];
    oy[0] = y[0];
    System.arraycopy(bx, 0, ox, 1, bx.length);
    System.arraycopy(by, 0, oy, 1, by.length);
    if (addLast) {
      ox[n - 1] = x[x.length - 1];
      oy[n - 1] = y[y.length - 1];
    }
    return new double[][] {ox, oy};
  }

  static int bucketWidth(int n, int maxPoints) {
    return Math.max(1, (n + maxPoints - 1) / maxPoints);
  }
}
