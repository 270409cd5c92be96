package org.bitopk.compression;

import java.util.Arrays;

/**
 * The outcome of {@link Compressor#select}: which coordinates were chosen (strictly ascending), how many were asked
 * for ({@link #targetK()}) and how many were chosen ({@link #achievedK()}). Immutable: the index array is copied in
 * {@link #of} and out of {@link #indices()}.
 *
 * <p>Ascending order is part of the contract because every consumer (gather, delta encoding, server aggregation)
 * walks indices in order, and sorted output costs the selectors nothing: they emit indices in a forward scan.
 */
public final class Selection {

  private final int[] indices;
  private final int targetK;

  private Selection(int[] indices, int targetK) {
    this.indices = indices;
    this.targetK = targetK;
  }

  /**
   * Validating factory.
   *
   * @param indicesAscending non-negative, strictly ascending indices (copied)
   * @param targetK the k that was asked for, at least 1
   */
  public static Selection of(int[] indicesAscending, int targetK) {
    if (indicesAscending == null) {
      throw new IllegalArgumentException("indices must not be null");
    }
    if (targetK < 1) {
      throw new IllegalArgumentException("targetK = " + targetK + " is out of range; expected targetK >= 1");
    }
    int[] copy = indicesAscending.clone();
    int previous = -1;
    for (int i = 0; i < copy.length; i++) {
      if (copy[i] <= previous) {
        throw new IllegalArgumentException(copy[i] < 0
            ? "index[" + i + "] = " + copy[i] + " is negative; expected indices >= 0"
            : "index[" + i + "] = " + copy[i] + " is not greater than index[" + (i - 1) + "] = " + previous
                + "; expected strictly ascending indices");
      }
      previous = copy[i];
    }
    return new Selection(copy, targetK);
  }

  /** For the built-in selectors, whose output is ascending by construction: no copy, no check. */
  static Selection trusted(int[] indicesAscending, int targetK) {
    return new Selection(indicesAscending, targetK);
  }

  /** The selected indices, strictly ascending (a copy). */
  public int[] indices() {
    return indices.clone();
  }

  /** The shared array, for callers inside the package that do not modify it. */
  int[] indicesUnsafe() {
    return indices;
  }

  /** Number of selected coordinates (the length of {@link #indices()}). */
  public int achievedK() {
    return indices.length;
  }

  /** The k that was asked for. */
  public int targetK() {
    return targetK;
  }

  /** achieved k / target k: 1 for exact selectors, the "estimated compression ratio" quality of estimators. */
  public double achievedRatio() {
    return (double) indices.length / targetK;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Selection && ((Selection) o).targetK == targetK
        && Arrays.equals(((Selection) o).indices, indices);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(indices) + targetK;
  }

  @Override
  public String toString() {
    return "Selection{achievedK=" + indices.length + ", targetK=" + targetK + "}";
  }
}
