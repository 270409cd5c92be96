package org.bitopk.compression;

import java.util.Arrays;

/**
 * Decodes many {@link SparseCodec} messages one after the other into buffers it reuses, and adds each into a dense
 * sum: what the parameter server does with the P uplinks of a round, without a {@link SparseVector} or any
 * allocation a message (the buffers grow to the largest nnz seen). A message is decoded and checked in full, exactly
 * as {@link SparseCodec#decode} does it, before {@link #addTo} touches the sum, so a defective message changes
 * nothing. Not thread-safe.
 */
public final class SparseDecoder {
  private int[] indices = new int[0];
  private float[] values = new float[0];
  private int dimension;
  private int nnz;

  /**
   * Decodes {@code bytes} into the buffers, replacing the previous message.
   *
   * @return the message's nnz
   * @throws IllegalArgumentException as {@link SparseCodec#decode}, with its messages
   */
  public int decode(byte[] bytes) {
    nnz = 0;
    SparseCodec.Header h = SparseCodec.header(bytes);
    if (indices.length < h.nnz()) {
      int size = Math.max(h.nnz(), indices.length + (indices.length >>> 1));
      indices = new int[size];
      values = new float[size];
    }
    SparseCodec.readEntries(bytes, h, indices, values);
    dimension = h.dimension();
    nnz = h.nnz();
    return nnz;
  }

  /** The dimension of the last message decoded. */
  public int dimension() {
    return dimension;
  }

  /** The nnz of the last message decoded (0 before the first, or after one that failed). */
  public int nnz() {
    return nnz;
  }

  /**
   * {@code sum[index(i)] += value(i)} for every entry of the last message, in index order (the same float additions
   * as adding its {@link SparseVector} entry by entry), setting bit {@code index(i)} of {@code marks}: bit j is bit
   * {@code j & 63} of {@code marks[j >>> 6]}.
   *
   * @param sum length {@link #dimension()}
   * @param marks at least {@code (dimension() + 63) / 64} words
   */
  public void addTo(float[] sum, long[] marks) {
    if (sum.length != dimension || marks.length < (dimension + 63) >>> 6) {
      throw new IllegalArgumentException("sum of length " + sum.length + " and " + marks.length
          + " mark words for a message of dimension " + dimension);
    }
    int[] idx = indices;
    float[] val = values;
    for (int i = 0; i < nnz; i++) {
      int j = idx[i];
      sum[j] += val[i];
      marks[j >>> 6] |= 1L << j;
    }
  }

  /** The last message as a vector (a copy): for tests and diagnostics. */
  public SparseVector vector() {
    return SparseVector.trusted(dimension, Arrays.copyOf(indices, nnz), Arrays.copyOf(values, nnz));
  }
}
