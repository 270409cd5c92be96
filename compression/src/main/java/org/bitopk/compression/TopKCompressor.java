package org.bitopk.compression;

/** Exact TopK: the k largest |x|, lower index first among equal magnitudes (see {@link RadixSelect}). */
final class TopKCompressor implements Compressor {

  private final RadixSelect radix = new RadixSelect();

  @Override
  public Selection select(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    return Selection.trusted(radix.topK(x, targetK), targetK);
  }

  /** Error feedback's fused path: see {@link RadixSelect#compensateAndCount}. */
  RadixSelect radix() {
    return radix;
  }

  @Override
  public String toString() {
    return "topk";
  }
}
