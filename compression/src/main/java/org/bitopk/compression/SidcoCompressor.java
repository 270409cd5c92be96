package org.bitopk.compression;

import java.util.Arrays;

/**
 * SIDCo (Abdelmoniem et al., "An Efficient Statistical-based Gradient Compression Technique for Distributed
 * Training Systems", MLSys 2021): fits a sparsity-inducing distribution to the magnitudes a = |x| and reads the
 * threshold η that a fraction δ = targetK / d of them should exceed off the fitted tail, in O(d) without sorting.
 *
 * <p>Estimators (stage 1 on all of a; stage m > 1 on the survivors X = {a > η} of the previous stage, shifted by
 * their minimum t, at per-stage ratio δ_m):
 * <ul>
 *   <li>exponential: η = −mean(a)·ln δ₁, then η = t − (mean(X) − t)·ln δ_m;
 *   <li>generalized Pareto by the method of moments on Y = X − t (t = 0 at stage 1), μ = mean(Y), σ² = var(Y):
 *       κ = ½(μ²/σ² − 1), α = ½μ(μ²/σ² + 1), η = α(1 − δ^κ)/κ + t (the exponential limit −α ln δ + t at κ = 0);
 *   <li>gamma then GP: stage 1 fits a gamma by Minka's approximation, s = ln mean(a) − mean(ln(a + ε)),
 *       k̂ = (3 − s + √((s − 3)² + 24s)) / (12s), β̂ = mean(a)/k̂, and takes η₁ = β̂·Q⁻¹(k̂, δ₁), the value a gamma(k̂,
 *       β̂) variable exceeds with probability δ₁ (Q⁻¹ inverts the upper regularized incomplete gamma; written with
 *       the lower function this is P⁻¹(k̂, 1 − δ₁), SciPy's {@code gammaincinv(k, 1 - δ)}); later stages use GP.
 *       As in the authors' code, ε is the double machine epsilon on magnitudes normalised by ‖x‖₂, i.e. ε·‖x‖₂ here, so
 *       the fit is scale-invariant; it only matters for exact zeros, whose logarithm is added once after the pass.
 *       (The authors' released code replaces Q⁻¹ by the closed form −β̂(ln δ + ln Γ(k̂)); this class uses the exact
 *       inverse, by Halley's method on the regularized incomplete gamma.)
 * </ul>
 *
 * <p>Stages: one stage at δ if the stage count is 1 or δ ≥ δ₁ = 0.25; otherwise stage 1 at δ₁ and M − 1 stages at
 * (δ/δ₁)^(1/(M−1)), so the ratios multiply to δ. The adaptive controller starts at one stage and every 5 calls
 * compares the mean achieved/target ratio: above 1.2 it drops a stage, below 0.8 it adds one, within [1,
 * ⌈log δ / log 0.5⌉].
 *
 * <p>Cost: stage 1 is one pass of sums; stage 2 one branch-free pass over the survivors' statistics; from stage 3 on
 * the (few) survivors are copied once and refined in that buffer; a last pass collects the indices above η.
 *
 * <p>Achieved k is approximate by design; the tests state the bounds per distribution.
 */
final class SidcoCompressor implements Compressor {

  /** Which distribution the magnitudes are fitted with. */
  enum Estimator {
    EXPONENTIAL("sidco-e"),
    GENERALIZED_PARETO("sidco-gp"),
    GAMMA_THEN_GP("sidco-gamma-gp");

    final String specName;

    Estimator(String specName) {
      this.specName = specName;
    }
  }

  static final double FIRST_RATIO = 0.25;
  static final int ADAPT_EVERY = 5;
  /** Python's {@code sys.float_info.epsilon}, the authors' choice. */
  static final double LOG_EPSILON = Math.ulp(1.0);

  private final Estimator estimator;
  private final int fixedStages;
  private final IntBuffer out = new IntBuffer(1024);
  private float[] survivors = new float[0];
  private int adaptiveStages = 1;
  private long lastSurvivorCount;
  private double ratioSum;
  private int calls;

  /**
   * @param fixedStages the stage count, or {@link CompressorSpec#ADAPTIVE} for the controller
   */
  SidcoCompressor(Estimator estimator, int fixedStages) {
    this.estimator = estimator;
    this.fixedStages = fixedStages;
  }

  /** The stage count the next call will use for ratio δ. */
  int stagesFor(double delta) {
    return fixedStages != CompressorSpec.ADAPTIVE ? fixedStages : Math.min(adaptiveStages, maxStages(delta));
  }

  static int maxStages(double delta) {
    return Math.max(1, (int) Math.ceil(Math.log(delta) / Math.log(0.5)));
  }

  @Override
  public Selection select(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    int d = x.length;
    double delta = (double) targetK / d;
    int stages = stagesFor(delta);
    double firstRatio = delta;
    double laterRatio = 1;
    if (stages > 1 && delta < FIRST_RATIO) {
      firstRatio = FIRST_RATIO;
      laterRatio = Math.pow(delta / FIRST_RATIO, 1.0 / (stages - 1));
    } else {
      stages = 1;
    }

    float eta = firstStage(x, firstRatio);
    if (stages >= 2) {
      double[] s = Moments.survivorStats(x, eta);
      lastSurvivorCount = (long) s[0];
      eta = nextThreshold(eta, (long) s[0], s[1], s[2], s[3], laterRatio);
    }
    int stage = 3;
    long survivorsOfPrevious = stages >= 2 ? lastSurvivorCount : d;
    // While the survivors are many, a branch-free pass over x is cheaper than copying them with a branch that
    // mispredicts; once they are few (expected below d/32), copy them once and refine in the copy.
    for (; stage <= stages && (double) survivorsOfPrevious * laterRatio > d / 32.0; stage++) {
      double[] s = Moments.survivorStats(x, eta);
      survivorsOfPrevious = (long) s[0];
      eta = nextThreshold(eta, (long) s[0], s[1], s[2], s[3], laterRatio);
    }
    if (stage <= stages) {
      int n = copySurvivors(x, eta);
      for (; stage <= stages && n > 0; stage++) {
        float previous = eta;
        long count = 0;
        double sum = 0;
        double squares = 0;
        float min = Float.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
          float a = survivors[i];
          if (a > previous) {
            double y = a - (double) previous;
            survivors[(int) count++] = a;
            sum += y;
            squares += y * y;
            min = Math.min(min, a);
          }
        }
        n = (int) count;
        eta = nextThreshold(previous, count, sum, squares, min, laterRatio);
      }
    }

    out.clear();
    out.addAbove(x, eta, false);
    int[] indices = out.toArray();
    adapt(indices.length, targetK, delta);
    return Selection.trusted(indices, targetK);
  }

  private float firstStage(float[] x, double ratio) {
    int d = x.length;
    double eta;
    switch (estimator) {
      case EXPONENTIAL: {
        double sum = Moments.absSum(x);
        requireFinite(x, new double[] {sum});
        eta = -(sum / d) * Math.log(ratio);
        break;
      }
      case GENERALIZED_PARETO: {
        double[] s = Moments.absSumAndSumOfSquares(x);
        requireFinite(x, s);
        double mean = s[0] / d;
        eta = paretoThreshold(mean, s[1] / d - mean * mean, ratio, 0);
        break;
      }
      case GAMMA_THEN_GP: {
        double[] s = Moments.absSumLogSumZerosSquares(x);
        requireFinite(x, s);
        double mean = s[0] / d;
        double zeros = s[2];
        double logSum = s[1];
        if (zeros > 0 && s[3] > 0) {
          // Zeros were logged as ln(MIN_NORMAL); they stand for ln(ε‖x‖₂).
          logSum += zeros * (Math.log(LOG_EPSILON * Math.sqrt(s[3])) - FastLog.log(Float.MIN_NORMAL));
        }
        double shapeStatistic = Math.log(mean) - logSum / d;
        if (!(mean > 0) || !(shapeStatistic > 0)) {
          eta = mean; // all zero or all equal: nothing is above the mean
        } else {
          double shape = gammaShape(shapeStatistic);
          eta = (mean / shape) * SpecialFunctions.inverseRegularizedGammaQ(shape, ratio);
        }
        break;
      }
      default:
        throw new AssertionError(estimator);
    }
    return Double.isFinite(eta) ? (float) eta : 0f;
  }

  /** Minka's closed-form approximation of the gamma shape from s = ln mean − mean ln. */
  static double gammaShape(double s) {
    return (3 - s + Math.sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
  }

  private static void requireFinite(float[] x, double[] sums) {
    // sum |x| is NaN or infinite iff some entry is.
    if (!Double.isFinite(sums[0])) {
      throw Checks.nonFinite("x", x);
    }
  }

  /**
   * The next stage's threshold from the survivors of {@code previous}: count, sum and sum of squares of
   * (a − previous), and their minimum t.
   */
  private float nextThreshold(float previous, long count, double sum, double squares, double t, double ratio) {
    if (count == 0) {
      return previous;
    }
    double shifted = sum / count; // mean(X) - previous
    double variance = Math.max(0, squares / count - shifted * shifted);
    double excess = shifted + previous - t; // mean(X) - t, >= 0
    double eta = estimator == Estimator.EXPONENTIAL
        ? t - excess * Math.log(ratio)
        : paretoThreshold(excess, variance, ratio, t);
    return Double.isFinite(eta) && eta >= previous ? (float) eta : previous;
  }

  /** GP fitted by moments to excesses with mean μ and variance σ², exceeded with probability ratio, plus t. */
  static double paretoThreshold(double mu, double variance, double ratio, double t) {
    if (!(mu > 0) || !(variance > 0)) {
      return t + Math.max(0, mu);
    }
    double r = mu * mu / variance;
    double kappa = 0.5 * (r - 1);
    double alpha = 0.5 * mu * (r + 1);
    if (Math.abs(kappa) < 1e-9) {
      return t - alpha * Math.log(ratio);
    }
    return alpha * (1 - Math.pow(ratio, kappa)) / kappa + t;
  }

  private int copySurvivors(float[] x, float eta) {
    int n = 0;
    float[] buffer = survivors;
    for (float v : x) {
      float a = Math.abs(v);
      if (a > eta) {
        if (n == buffer.length) {
          buffer = Arrays.copyOf(buffer, Math.max(1024, buffer.length + (buffer.length >>> 1)));
        }
        buffer[n++] = a;
      }
    }
    survivors = buffer;
    return n;
  }

  private void adapt(int achieved, int targetK, double delta) {
    if (fixedStages != CompressorSpec.ADAPTIVE) {
      return;
    }
    ratioSum += (double) achieved / targetK;
    if (++calls < ADAPT_EVERY) {
      return;
    }
    double mean = ratioSum / calls;
    ratioSum = 0;
    calls = 0;
    if (mean > 1.2) {
      adaptiveStages--;
    } else if (mean < 0.8) {
      adaptiveStages++;
    }
    adaptiveStages = Math.max(1, Math.min(maxStages(delta), adaptiveStages));
  }

  @Override
  public String toString() {
    return estimator.specName + (fixedStages == CompressorSpec.ADAPTIVE ? "" : ":stages=" + fixedStages);
  }
}
