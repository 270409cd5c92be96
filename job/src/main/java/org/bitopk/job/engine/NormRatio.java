package org.bitopk.job.engine;

/** The ratio of two norms, such as δ = ‖e − C(e)‖ / ‖e‖: 0 when the denominator is 0 (nothing to leave behind). */
final class NormRatio {
  private NormRatio() {}

  static double of(double numerator, double denominator) {
    return denominator == 0 ? 0.0 : numerator / denominator;
  }
}
