package org.bitopk.lab.reproduction;

import java.util.Locale;

/** How REPRODUCTION.md prints figures: fixed decimals, a sign on differences, "–" for a figure that is absent. */
final class Numbers {
  static final String NONE = "–";

  private Numbers() {}

  /** A fraction in [0, 1] as a percentage with two decimals. */
  static String percent(double fraction) {
    return fixed(100 * fraction, 2);
  }

  static String fixed(double v, int decimals) {
    return Double.isNaN(v) ? NONE : String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /** A difference with its sign, e.g. {@code +0.12}, {@code −1.30}. */
  static String signed(double v, int decimals) {
    if (Double.isNaN(v)) {
      return NONE;
    }
    String s = String.format(Locale.ROOT, "%+." + decimals + "f", v);
    return s.startsWith("-") ? "−" + s.substring(1) : s;
  }

  static String mib(double bytes) {
    return fixed(bytes / (1024.0 * 1024.0), 2);
  }

  /** A learning rate or other setting as the grid wrote it (0.08, not 0.08000000000000002). */
  static String plain(double v) {
    return Double.isNaN(v) ? NONE : java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
