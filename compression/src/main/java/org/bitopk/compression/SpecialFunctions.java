package org.bitopk.compression;

/**
 * The few special functions the threshold estimators need, in double precision: the normal quantile (Gaussian-k)
 * and the regularized incomplete gamma functions with their inverse (SIDCo's gamma fit). Written out here rather
 * than pulled from a statistics library to keep this module dependency-free; each is tested against independent
 * closed forms and published quantiles.
 */
final class SpecialFunctions {

  private SpecialFunctions() {}

  /**
   * Φ⁻¹(p), the standard normal quantile, by Wichura's algorithm AS 241 (PPND16), relative accuracy about 1e-16.
   *
   * @param p in (0, 1)
   */
  static double normalQuantile(double p) {
    if (!(p > 0 && p < 1)) {
      throw new IllegalArgumentException("p = " + p + " is out of range; expected 0 < p < 1");
    }
    double q = p - 0.5;
    if (Math.abs(q) <= 0.425) {
      double r = 0.180625 - q * q;
      return q * (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r
          + 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r
          + 133.14166789178437745) * r + 3.387132872796366608)
          / (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r
          + 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r
          + 42.313330701600911252) * r + 1.0);
    }
    double r = q < 0 ? p : 1 - p;
    r = Math.sqrt(-Math.log(r));
    double value;
    if (r <= 5) {
      r -= 1.6;
      value = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
          + 1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r
          + 4.6303378461565452959) * r + 1.42343711074968357734)
          / (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
          + 0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r
          + 2.05319162663775882187) * r + 1.0);
    } else {
      r -= 5;
      value = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
          + 0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r
          + 5.4637849111641143699) * r + 6.6579046435011037772)
          / (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
          + 7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
          + 0.59983220655588793769) * r + 1.0);
    }
    return q < 0 ? -value : value;
  }

  private static final double[] LANCZOS = {
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};

  /** ln Γ(a) for a > 0 (Lanczos, g = 7, n = 9; relative accuracy about 1e-15). */
  static double logGamma(double a) {
    if (a < 0.5) {
      // Reflection keeps the Lanczos sum in its accurate range.
      return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * a))) - logGamma(1 - a);
    }
    double z = a - 1;
    double sum = LANCZOS[0];
    double t = z + 7.5;
    for (int i = 1; i < LANCZOS.length; i++) {
      sum += LANCZOS[i] / (z + i);
    }
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
  }

  /** P(a, x) = γ(a, x)/Γ(a), the regularized lower incomplete gamma function, a > 0, x >= 0. */
  static double regularizedGammaP(double a, double x) {
    checkGammaArguments(a, x);
    if (x == 0) {
      return 0;
    }
    return x < a + 1 ? gammaSeries(a, x) : 1 - gammaContinuedFraction(a, x);
  }

  /** Q(a, x) = 1 - P(a, x), computed directly (no cancellation in the upper tail). */
  static double regularizedGammaQ(double a, double x) {
    checkGammaArguments(a, x);
    if (x == 0) {
      return 1;
    }
    return x < a + 1 ? 1 - gammaSeries(a, x) : gammaContinuedFraction(a, x);
  }

  private static void checkGammaArguments(double a, double x) {
    if (!(a > 0) || Double.isInfinite(a)) {
      throw new IllegalArgumentException("shape a = " + a + " is out of range; expected a finite a > 0");
    }
    if (!(x >= 0)) {
      throw new IllegalArgumentException("x = " + x + " is out of range; expected x >= 0");
    }
  }

  /** Series x^a e^-x / Γ(a+1) Σ x^n / ((a+1)...(a+n)), converges fast for x < a + 1. */
  private static double gammaSeries(double a, double x) {
    double term = 1 / a;
    double sum = term;
    for (int n = 1; n < 10_000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-17) {
        break;
      }
    }
    return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
  }

  /** Q(a, x) by Legendre's continued fraction (modified Lentz), converges fast for x >= a + 1. */
  private static double gammaContinuedFraction(double a, double x) {
    double tiny = 1e-300;
    double b = x + 1 - a;
    double c = 1 / tiny;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 10_000; i++) {
      double an = -i * (i - a);
      b += 2;
      d = an * d + b;
      if (Math.abs(d) < tiny) {
        d = tiny;
      }
      c = b + an / c;
      if (Math.abs(c) < tiny) {
        c = tiny;
      }
      d = 1 / d;
      double delta = d * c;
      h *= delta;
      if (Math.abs(delta - 1) < 1e-16) {
        break;
      }
    }
    return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
  }

  /** x with P(a, x) = p: the p-quantile of a gamma(a, 1) variable. */
  static double inverseRegularizedGammaP(double a, double p) {
    return inverseGamma(a, p, false);
  }

  /** x with Q(a, x) = q: the value a gamma(a, 1) variable exceeds with probability q. */
  static double inverseRegularizedGammaQ(double a, double q) {
    return inverseGamma(a, q, true);
  }

  /**
   * Halley iteration on P (or Q when the upper tail is asked for, so small tail probabilities keep their relative
   * precision), started from Numerical Recipes' initial guesses (Wilson-Hilferty for a > 1, a power/log
   * approximation below). Converges to a relative change below 1e-14 in a handful of steps.
   */
  private static double inverseGamma(double a, double probability, boolean upper) {
    if (!(a > 0) || Double.isInfinite(a)) {
      throw new IllegalArgumentException("shape a = " + a + " is out of range; expected a finite a > 0");
    }
    if (!(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException("probability = " + probability + " is out of range; expected [0, 1]");
    }
    if ((upper && probability == 1) || (!upper && probability == 0)) {
      return 0;
    }
    if ((upper && probability == 0) || (!upper && probability == 1)) {
      return Double.POSITIVE_INFINITY;
    }
    // Both tails, each taken from the input where it is exact (1 - tiny loses the tiny tail).
    double lower = upper ? 1 - probability : probability;
    double upperTail = upper ? probability : 1 - probability;
    double lnGammaA = logGamma(a);
    double a1 = a - 1;
    double x;
    if (a > 1) {
      double t = Math.sqrt(-2 * Math.log(Math.min(lower, upperTail)));
      double z = (2.30753 + t * 0.27061) / (1 + t * (0.99229 + t * 0.04481)) - t;
      if (lower < 0.5) {
        z = -z;
      }
      x = Math.max(1e-3, a * Math.pow(1 - 1 / (9 * a) - z / (3 * Math.sqrt(a)), 3));
    } else {
      double t = 1 - a * (0.253 + a * 0.12);
      x = lower < t ? Math.pow(lower / t, 1 / a) : 1 - Math.log(upperTail / (1 - t));
    }
    for (int iteration = 0; iteration < 100; iteration++) {
      if (x <= 0) {
        return 0;
      }
      // err = P(a,x) - p, from the tail that is not close to 1.
      double err = upper ? probability - regularizedGammaQ(a, x) : regularizedGammaP(a, x) - probability;
      double density = Math.exp(-x + a1 * Math.log(x) - lnGammaA);
      if (density == 0) {
        break;
      }
      double u = err / density;
      double step = u / (1 - 0.5 * Math.min(1, u * (a1 / x - 1)));
      double next = x - step;
      if (next <= 0) {
        next = 0.5 * x;
      }
      boolean converged = Math.abs(next - x) <= 1e-14 * next;
      x = next;
      if (converged) {
        break;
      }
    }
    return x;
  }
}
