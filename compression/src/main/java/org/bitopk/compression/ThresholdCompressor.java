package org.bitopk.compression;

/**
 * Fixed threshold: every coordinate with {@code |x| > tau}, however many that is. targetK is only reported, so the
 * achieved/target ratio shows how far a fixed tau is from the wanted density as gradients shrink during training.
 */
final class ThresholdCompressor implements Compressor {

  private final float tau;
  private final IntBuffer out = new IntBuffer(1024);

  ThresholdCompressor(float tau) {
    this.tau = tau;
  }

  @Override
  public Selection select(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    out.clear();
    out.addAbove(x, tau, false);
    out.requireFiniteSelected(x);
    return Selection.trusted(out.toArray(), targetK);
  }

  @Override
  public String toString() {
    return "threshold:tau=" + tau;
  }
}
