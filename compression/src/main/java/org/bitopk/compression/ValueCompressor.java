package org.bitopk.compression;

/**
 * A compressor that sends values other than x's own: the unbiased compressors ({@code randomk:scaled},
 * {@code natural}), whose output C(x) satisfies E[C(x)] = x over their random draws. {@link ErrorFeedback} asks these
 * for the whole message and keeps {@code residual = c - sent} at the sent coordinates, where the selectors leave 0.
 *
 * <p>{@link #select} and {@link #compress} are one call each: both advance the call counter, and
 * {@code select(x, k)} returns the coordinates {@code compress(x, k)} would have sent.
 */
interface ValueCompressor extends Compressor {

  /**
   * The message for x: the chosen coordinates, strictly ascending, with the values the receiver adds. A call that
   * throws leaves the state unchanged.
   *
   * @param x the vector to compress, not modified, finite
   * @param targetK in {@code [1, x.length]}
   */
  SparseVector compress(float[] x, int targetK);

  @Override
  default SparseVector message(float[] x, int targetK) {
    return compress(x, targetK);
  }

  @Override
  default Selection select(float[] x, int targetK) {
    return Selection.trusted(compress(x, targetK).indicesUnsafe(), targetK);
  }
}
