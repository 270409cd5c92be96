package org.bitopk.compression;

/**
 * Gaussian-k (Shi et al., "Understanding Top-k Sparsification in Distributed Deep Learning"): assumes the
 * coordinates are roughly normal, so the (1 - ρ/2) normal percentile of the signed values, {@code μ + Φ⁻¹(1 - ρ/2)σ},
 * approximates the k-th largest |x| in one O(d) pass over mean and variance. Up to three refinements then halve the
 * threshold when fewer than 2k/3 coordinates pass it or multiply it by 1.5 when more than 4k/3 do; the coordinates
 * above the final threshold are sent. ρ = targetK / d.
 *
 * <p>Achieved k: within [2k/3, 4k/3] whenever a refinement lands there (bell-shaped data, see the tests); heavier
 * tails (Laplace, gamma with shape below 1) can exhaust the three refinements and end outside, which is the
 * estimator's known weakness and is reported, not hidden, through {@link Selection#achievedK()}.
 */
final class GaussianKCompressor implements Compressor {

  private static final int REFINEMENTS = 3;

  private final IntBuffer out = new IntBuffer(1024);

  @Override
  public Selection select(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    int d = x.length;
    double[] moments = Moments.sumAndSumOfSquares(x);
    if (!Double.isFinite(moments[0] + moments[1])) {
      throw Checks.nonFinite("x", x);
    }
    double mean = moments[0] / d;
    double variance = Math.max(0, moments[1] / d - mean * mean);
    double rho = (double) targetK / d;
    float threshold = (float) (mean + quantile(rho) * Math.sqrt(variance));
    double low = 2.0 * targetK / 3;
    double high = 4.0 * targetK / 3;
    for (int refinement = 0; refinement <= REFINEMENTS; refinement++) {
      out.clear();
      out.addAbove(x, threshold, false);
      int count = out.size();
      if (refinement == REFINEMENTS) {
        break;
      }
      if (count < low) {
        threshold *= 0.5f;
      } else if (count > high) {
        threshold *= 1.5f;
      } else {
        break;
      }
    }
    return Selection.trusted(out.toArray(), targetK);
  }

  /** Φ⁻¹(1 - ρ/2), with ρ = 1 mapped to the median (0) rather than to an error. */
  private static double quantile(double rho) {
    double p = 1 - rho / 2;
    return p <= 0.5 ? 0 : SpecialFunctions.normalQuantile(p);
  }

  @Override
  public String toString() {
    return "gaussiank";
  }
}
