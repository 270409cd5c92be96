package org.bitopk.job.report;

import java.util.Arrays;
import java.util.Objects;

/** One named line of a chart: x and y of equal length, every value finite. Immutable. */
public final class ChartSeries {

  private final String name;
  private final double[] x;
  private final double[] y;
  private final boolean dashed;

  private ChartSeries(String name, double[] x, double[] y, boolean dashed) {
    this.name = name;
    this.x = x;
    this.y = y;
    this.dashed = dashed;
  }

  /**
   * Pairs {@code x[i], y[i]}, dropping pairs where either value is not finite (a metric absent on some
   * lines must not draw a line to zero).
   *
   * @throws IllegalArgumentException when the name is blank or the arrays differ in length
   */
  public static ChartSeries of(String name, double[] x, double[] y) {
    return of(name, x, y, false);
  }

  /**
   * A reference line (a target the solid series should meet): drawn dashed so that a solid series lying
   * exactly on it stays visible.
   */
  public static ChartSeries reference(String name, double[] x, double[] y) {
    return of(name, x, y, true);
  }

  private static ChartSeries of(String name, double[] x, double[] y, boolean dashed) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("series name must not be blank");
    }
    Objects.requireNonNull(x, "x");
    Objects.requireNonNull(y, "y");
    if (x.length != y.length) {
      throw new IllegalArgumentException("series " + name + ": x has " + x.length + " values, y has " + y.length);
    }
    int n = 0;
    for (int i = 0; i < x.length; i++) {
      if (Double.isFinite(x[i]) && Double.isFinite(y[i])) {
        n++;
      }
    }
    double[] xs = new double[n];
    double[] ys = new double[n];
    int j = 0;
    for (int i = 0; i < x.length; i++) {
      if (Double.isFinite(x[i]) && Double.isFinite(y[i])) {
        xs[j] = x[i];
        ys[j] = y[i];
        j++;
      }
    }
    return new ChartSeries(name, xs, ys, dashed);
  }

  public String name() {
    return name;
  }

  /** True for a reference line, drawn dashed. */
  public boolean dashed() {
    return dashed;
  }

  public int size() {
    return x.length;
  }

  public boolean isEmpty() {
    return x.length == 0;
  }

  /** A copy of the x values. */
  public double[] x() {
    return x.clone();
  }

  /** A copy of the y values. */
  public double[] y() {
    return y.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChartSeries s && name.equals(s.name) && dashed == s.dashed && Arrays.equals(x, s.x) && Arrays.equals(y, s.y);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, Arrays.hashCode(x), Arrays.hashCode(y));
  }

  @Override
  public String toString() {
    return "ChartSeries[" + name + ", " + x.length + " points]";
  }
}
