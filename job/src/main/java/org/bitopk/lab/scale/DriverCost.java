package org.bitopk.lab.scale;

import java.util.ArrayList;
import java.util.List;

/**
 * The driver's time for one bidirectional round: decode and average the P uplinks, the server's error feedback and
 * TopK over d, encode, apply and broadcast, modelled as t = a·P·k + b·d + c (a per received coordinate, b per model
 * coordinate, c per round, in nanoseconds), fitted on measured points of {@code DriverRoundBenchmark}.
 */
public record DriverCost(double nanosPerReceivedCoordinate, double nanosPerElement, double fixedNanos) {

  /** One measured point: d, P, k (per worker) and the driver's time per round. */
  public record Point(long dimension, int workers, long k, double nanos) {
    long received() {
      return workers * k;
    }
  }

  /** The fit, its points and each point's relative error (predicted / measured − 1). */
  public record Fit(DriverCost cost, List<Point> points, double[] relativeErrors) {
    public double worstRelativeError() {
      double worst = 0;
      for (double e : relativeErrors) {
        worst = Math.max(worst, Math.abs(e));
      }
      return worst;
    }
  }

  /** Predicted nanoseconds for P workers sending k coordinates each into a model of d. */
  public double nanos(int workers, long k, long dimension) {
    return nanosPerReceivedCoordinate * workers * k + nanosPerElement * dimension + fixedNanos;
  }

  /** Fits a, b and c on {@code points} by relative least squares. */
  public static Fit fit(List<Point> points) {
    List<double[]> rows = new ArrayList<>();
    double[] y = new double[points.size()];
    for (int i = 0; i < points.size(); i++) {
      Point p = points.get(i);
      rows.add(new double[] {p.received(), p.dimension(), 1});
      y[i] = p.nanos();
    }
    double[] beta = RelativeLeastSquares.fit(rows, y);
    DriverCost cost = new DriverCost(beta[0], beta[1], beta[2]);
    double[] errors = new double[points.size()];
    for (int i = 0; i < points.size(); i++) {
      Point p = points.get(i);
      errors[i] = cost.nanos(p.workers(), p.k(), p.dimension()) / p.nanos() - 1;
    }
    return new Fit(cost, List.copyOf(points), errors);
  }

  /**
   * The check for a super-linear term: the model fitted on the points of smaller d only, then its error
   * (predicted / measured − 1) on each point of the largest d. A term growing faster than P·k or d shows as a
   * prediction short of the measured time there.
   */
  public static double[] extrapolationErrors(List<Point> points) {
    long largest = points.stream().mapToLong(Point::dimension).max().orElseThrow();
    DriverCost smaller = fit(points.stream().filter(p -> p.dimension() < largest).toList()).cost();
    return points.stream().filter(p -> p.dimension() == largest)
        .mapToDouble(p -> smaller.nanos(p.workers(), p.k(), p.dimension()) / p.nanos() - 1).toArray();
  }
}
