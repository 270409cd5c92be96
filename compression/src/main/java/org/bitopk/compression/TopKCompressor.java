package org.bitopk.compression;

/**
 * Exact TopK: exactly the k largest |x|; among equal magnitudes at the threshold the lower indices win, so the
 * result is a deterministic function of x that workers, the server and the tests' brute-force reference agree on.
 * Expected O(d): a sampled bound and one collecting pass on bell-shaped data, a radix select on the magnitude bits
 * otherwise, never a sort or a heap (see {@link RadixSelect} for why). {@link ErrorFeedback} recognises this class
 * and runs the collecting pass inside its own pass over c.
 */
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
