package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpecialFunctionsTest {

  /** Normal quantiles from √2·erfinv(2p − 1) evaluated with mpmath at 30 digits. */
  @ParameterizedTest
  @CsvSource({"0.975, 1.959963984540054", "0.995, 2.5758293035489004", "0.9995, 3.2905267314919258",
      "0.5, 0.0", "0.841344746068543, 1.0", "0.999999, 4.7534243088170878", "1e-10, -6.361340902404056",
      "0.02, -2.053748910631823"})
  void normalQuantileMatchesPublishedValues(double p, double z) {
    assertEquals(z, SpecialFunctions.normalQuantile(p), 1e-12 * Math.max(1, Math.abs(z)));
  }

  @Test
  void exponentialCaseHasClosedForms() {
    // Gamma shape 1 is the exponential: P(1, x) = 1 - e^-x, Q⁻¹(1, q) = -ln q, P⁻¹(1, p) = -ln(1 - p).
    for (double q : new double[] {0.9, 0.5, 0.25, 0.1, 1e-3, 1e-6, 1e-12}) {
      assertEquals(-Math.log(q), SpecialFunctions.inverseRegularizedGammaQ(1, q), 1e-12 * -Math.log(q), "q=" + q);
      assertEquals(-Math.log1p(-q), SpecialFunctions.inverseRegularizedGammaP(1, q), 1e-12, "p=" + q);
    }
    for (double x : new double[] {0.01, 0.5, 1, 3, 20}) {
      assertEquals(-Math.expm1(-x), SpecialFunctions.regularizedGammaP(1, x), 1e-14);
      assertEquals(Math.exp(-x), SpecialFunctions.regularizedGammaQ(1, x), 1e-14 * Math.exp(-x) + 1e-300);
    }
  }

  @Test
  void integerShapesMatchThePoissonSum() {
    // Q(n, x) = e^-x Σ_{j<n} x^j / j! for integer n.
    for (int n = 1; n <= 12; n++) {
      for (double x : new double[] {0.1, 1, 2.5, 7, 15, 40}) {
        double term = 1;
        double sum = 0;
        for (int j = 0; j < n; j++) {
          sum += term;
          term *= x / (j + 1);
        }
        double q = Math.exp(-x) * sum;
        assertEquals(q, SpecialFunctions.regularizedGammaQ(n, x), 1e-13 * Math.max(q, 1e-300) + 1e-15,
            "n=" + n + " x=" + x);
      }
    }
  }

  /** Chi-square quantiles χ²_ν(p) = 2 P⁻¹(ν/2, p), reference values by mpmath root finding at 30 digits. */
  @ParameterizedTest
  @CsvSource({"1, 0.95, 3.841458820694124", "2, 0.95, 5.991464547107979", "10, 0.99, 23.209251158954357",
      "3, 0.05, 0.35184631774927141", "1, 0.999, 10.827566170662733", "5, 0.5, 4.3514601910955273",
      "1, 0.01, 1.5708785790970198e-4", "100, 0.975, 129.56119718583659", "0.5, 0.9, 1.5007857444736715"})
  void chiSquareQuantiles(double nu, double p, double expected) {
    assertEquals(expected, 2 * SpecialFunctions.inverseRegularizedGammaP(nu / 2, p), 1e-9 * expected);
    assertEquals(expected, 2 * SpecialFunctions.inverseRegularizedGammaQ(nu / 2, 1 - p), 1e-9 * expected);
  }

  @Test
  void inverseRoundTripsOverShapesAndTails() {
    for (double a : new double[] {0.05, 0.3, 0.7, 1, 1.5, 4, 30, 500}) {
      for (double q : new double[] {0.999, 0.75, 0.25, 0.01, 1e-4, 1e-8}) {
        double x = SpecialFunctions.inverseRegularizedGammaQ(a, q);
        assertEquals(q, SpecialFunctions.regularizedGammaQ(a, x), 1e-10 * q, "a=" + a + " q=" + q);
      }
    }
  }

  @Test
  void logGammaMatchesFactorials() {
    double factorial = 1;
    for (int n = 1; n <= 20; n++) {
      assertEquals(Math.log(factorial), SpecialFunctions.logGamma(n), 1e-13 * Math.max(1, Math.log(factorial)));
      factorial *= n;
    }
    assertEquals(0.5 * Math.log(Math.PI), SpecialFunctions.logGamma(0.5), 1e-14);
  }
}
