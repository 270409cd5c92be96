package org.bitopk.compression;

import java.io.Serializable;
import java.util.Arrays;

/**
 * An immutable sparse vector: {@code nnz} (index, value) pairs with indices strictly ascending in
 * {@code [0, dimension)} and finite values (zeros are allowed: a selector may pick a zero coordinate). Arrays are
 * copied in and out of the public API. Serializable with plain Java serialization; the job registers the class with
 * Spark's Kryo (see {@code package-info}). For bytes on the wire use {@link SparseCodec}.
 */
public final class SparseVector implements Serializable {

  private static final long serialVersionUID = 1L;

  private final int dimension;
  private final int[] indices;
  private final float[] values;

  private SparseVector(int dimension, int[] indices, float[] values) {
    this.dimension = dimension;
    this.indices = indices;
    this.values = values;
  }

  /**
   * Validating factory; copies both arrays.
   *
   * @param dimension length of the dense vector, at least 1
   * @param indices strictly ascending, in [0, dimension)
   * @param values finite, same length as indices
   */
  public static SparseVector of(int dimension, int[] indices, float[] values) {
    if (indices == null || values == null) {
      throw new IllegalArgumentException("indices and values must not be null");
    }
    int[] idx = indices.clone();
    float[] val = values.clone();
    validate(dimension, idx, val);
    return new SparseVector(dimension, idx, val);
  }

  /** The coordinates of {@code dense} chosen by {@code selection}: values are {@code dense[indices[i]]}. */
  public static SparseVector gather(float[] dense, Selection selection) {
    if (dense == null || selection == null) {
      throw new IllegalArgumentException("dense and selection must not be null");
    }
    if (dense.length == 0) {
      throw new IllegalArgumentException("dense is empty (length 0); expected at least 1 coordinate");
    }
    int[] idx = selection.indicesUnsafe();
    if (idx.length > 0 && idx[idx.length - 1] >= dense.length) {
      throw new IllegalArgumentException("selection index " + idx[idx.length - 1]
          + " is out of range; expected indices < " + dense.length + " (the dimension)");
    }
    float[] val = new float[idx.length];
    float probe = 0f;
    for (int i = 0; i < idx.length; i++) {
      float v = dense[idx[i]];
      val[i] = v;
      probe += v * 0f;
    }
    if (probe != 0f) {
      throw Checks.nonFinite("gathered values", val);
    }
    return new SparseVector(dense.length, idx, val);
  }

  /** No copies, no checks: for callers in the package that produced valid, unshared arrays. */
  static SparseVector trusted(int dimension, int[] indices, float[] values) {
    return new SparseVector(dimension, indices, values);
  }

  static void validate(int dimension, int[] idx, float[] val) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension = " + dimension + " is out of range; expected dimension >= 1");
    }
    if (idx.length != val.length) {
      throw new IllegalArgumentException("indices length " + idx.length + " does not match values length "
          + val.length + "; expected equal lengths");
    }
    if (idx.length > dimension) {
      throw new IllegalArgumentException("nnz = " + idx.length + " exceeds dimension " + dimension);
    }
    int previous = -1;
    for (int i = 0; i < idx.length; i++) {
      int index = idx[i];
      if (index < 0 || index >= dimension) {
        throw new IllegalArgumentException("index[" + i + "] = " + index + " is out of range; expected 0 <= index < "
            + dimension);
      }
      if (index <= previous) {
        throw new IllegalArgumentException("index[" + i + "] = " + index + " is not greater than index[" + (i - 1)
            + "] = " + previous + "; expected strictly ascending indices");
      }
      if (!Float.isFinite(val[i])) {
        throw new IllegalArgumentException("value[" + i + "] = " + val[i] + " at index " + index
            + " is not finite; expected finite values");
      }
      previous = index;
    }
  }

  /** Length of the dense vector this represents. */
  public int dimension() {
    return dimension;
  }

  /** Number of stored (index, value) pairs. */
  public int nnz() {
    return indices.length;
  }

  /** The i-th stored index, {@code 0 <= i < nnz()}. */
  public int index(int i) {
    return indices[i];
  }

  /** The i-th stored value, {@code 0 <= i < nnz()}. */
  public float value(int i) {
    return values[i];
  }

  /** Stored indices, ascending (a copy). */
  public int[] indices() {
    return indices.clone();
  }

  /** Stored values (a copy). */
  public float[] values() {
    return values.clone();
  }

  int[] indicesUnsafe() {
    return indices;
  }

  float[] valuesUnsafe() {
    return values;
  }

  /**
   * {@code dense[index(i)] += scale * value(i)} for every i in index order (the float rounding of each update is
   * therefore reproducible across workers and the server).
   */
  public void addTo(float[] dense, float scale) {
    if (dense == null || dense.length != dimension) {
      throw new IllegalArgumentException("dense length " + (dense == null ? "null" : String.valueOf(dense.length))
          + " does not match dimension " + dimension);
    }
    for (int i = 0; i < indices.length; i++) {
      dense[indices[i]] += scale * values[i];
    }
  }

  /** A new dense array of length {@link #dimension()} with the stored values and zeros elsewhere. */
  public float[] toDense() {
    float[] dense = new float[dimension];
    for (int i = 0; i < indices.length; i++) {
      dense[indices[i]] = values[i];
    }
    return dense;
  }

  /** Checks the invariants after Java deserialization, which bypasses the factory. */
  private Object readResolve() {
    validate(dimension, indices, values);
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SparseVector)) {
      return false;
    }
    SparseVector other = (SparseVector) o;
    return dimension == other.dimension && Arrays.equals(indices, other.indices)
        && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return (31 * dimension + Arrays.hashCode(indices)) * 31 + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "SparseVector{dimension=" + dimension + ", nnz=" + indices.length + "}";
  }
}
