package org.bitopk.compression;

/**
 * Chooses which coordinates of a flattened vector to send. The built-in selectors choose by magnitude {@code |x|}
 * (Random-k at random) and send x's own values; the unbiased {@code randomk:scaled} and {@code natural} also make the
 * values they send (scaled or rounded to powers of two, package-private {@code ValueCompressor}), which
 * {@link ErrorFeedback} handles. Implementations may be stateful (adaptive SIDCo stages, the call counter of the randomized ones,
 * reused scratch buffers), so use one instance per worker and one per server; instances are not thread-safe.
 *
 * <p>An implementation never modifies {@code x}. It rejects, with an {@link IllegalArgumentException}, an empty
 * {@code x}, a {@code targetK} outside {@code [1, x.length]} and non-finite entries. The {@link Selection} it
 * returns reports the achieved k next to the target k: exact selectors achieve the target, threshold estimators
 * (Gaussian-k, SIDCo, DGC, fixed threshold) only approximately. A call that throws leaves the state unchanged.
 *
 * <p>State that carries over from one call to the next (not scratch buffers) can be saved and restored, so a
 * retried task can redo a round from the state before it and a checkpoint resumes a run exactly: after
 * {@code b.restoreState(a.saveState())}, where {@code b} was created from the same {@link CompressorSpec} and seed
 * as {@code a}, {@code b} selects exactly what {@code a} would from then on.
 */
public interface Compressor {

  /**
   * Selects coordinates of {@code x}.
   *
   * @param x the vector to compress, not modified
   * @param targetK the number of coordinates asked for, in {@code [1, x.length]}
   * @return the selected indices, strictly ascending, with the target and achieved k
   */
  Selection select(float[] x, int targetK);

  /**
   * The message for {@code x}: the selected coordinates with the values a receiver adds. For a selector these are
   * x's own values ({@code SparseVector.gather(x, select(x, k))}); the unbiased compressors send their scaled or
   * rounded values. Schemes that compress a difference without error feedback (EF21, Artemis, MCM) use this, so
   * an unbiased compressor stays unbiased there too.
   *
   * @param x the vector to compress, not modified
   * @param targetK the number of coordinates asked for, in {@code [1, x.length]}
   */
  default SparseVector message(float[] x, int targetK) {
    return SparseVector.gather(x, select(x, targetK));
  }

  /**
   * The state the next {@link #select} depends on, beyond the spec and seed this instance was created from, as a
   * self-checking byte string: empty for compressors whose selection depends on the current input only.
   */
  default byte[] saveState() {
    return new byte[0];
  }

  /**
   * Continues from a state {@link #saveState} returned, on this instance or on another created from the same spec
   * and seed.
   *
   * @throws IllegalArgumentException if the state is null, damaged, or was saved by a different kind of
   *     compressor or with a different seed; the current state is then unchanged
   */
  default void restoreState(byte[] state) {
    if (state == null) {
      throw new IllegalArgumentException("compressor state for '" + this + "' is null; expected the bytes "
          + "saveState() returned (empty for '" + this + "')");
    }
    if (state.length != 0) {
      throw new IllegalArgumentException("compressor '" + this + "' keeps no state between calls; expected an "
          + "empty state, got " + state.length + " bytes");
    }
  }
}
