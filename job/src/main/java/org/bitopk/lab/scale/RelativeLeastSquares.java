package org.bitopk.lab.scale;

import java.util.List;
import org.apache.commons.math3.stat.regression.OLSMultipleLinearRegression;

/**
 * A linear model y ≈ Σ β_i·x_i fitted by least squares on the relative error (each row divided by its y), so that
 * points of a millisecond and of a second weigh alike, as a cost model's error is judged in per cent.
 */
public final class RelativeLeastSquares {
  private RelativeLeastSquares() {}

  /**
   * @param features one row per point, every row the same length (put a 1 in a column for a constant term)
   * @param observed y per point, all > 0
   * @return β, one per column
   * @throws IllegalArgumentException when there are fewer points than columns or a y is not positive
   */
  public static double[] fit(List<double[]> features, double[] observed) {
    return fit(features, observed, new double[observed.length]);
  }

  /**
   * β minimising Σ ((offset_i + β·x_i) / y_i − 1)²: the same with a part of each y already known.
   *
   * @param offsets the known part of each observation
   */
  public static double[] fit(List<double[]> features, double[] observed, double[] offsets) {
    int n = observed.length;
    if (features.size() != n || n == 0) {
      throw new IllegalArgumentException("need one row of features per observation, got " + features.size()
          + " rows for " + n + " observations");
    }
    int columns = features.get(0).length;
    if (n <= columns) {
      throw new IllegalArgumentException("need more points (" + n + ") than coefficients (" + columns + ")");
    }
    double[][] x = new double[n][columns];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      if (!(observed[i] > 0)) {
        throw new IllegalArgumentException("observation " + i + " is " + observed[i] + ", expected > 0");
      }
      for (int c = 0; c < columns; c++) {
        x[i][c] = features.get(i)[c] / observed[i];
      }
      y[i] = 1 - offsets[i] / observed[i];
    }
    OLSMultipleLinearRegression ols = new OLSMultipleLinearRegression();
    ols.setNoIntercept(true);
    ols.newSampleData(y, x);
    return ols.estimateRegressionParameters();
  }

  /** Σ β_i·x_i. */
  public static double predict(double[] coefficients, double[] features) {
    double sum = 0;
    for (int c = 0; c < coefficients.length; c++) {
      sum += coefficients[c] * features[c];
    }
    return sum;
  }
}
