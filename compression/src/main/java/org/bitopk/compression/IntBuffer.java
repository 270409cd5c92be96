package org.bitopk.compression;

import java.util.Arrays;

/** A reusable growable int array for selectors whose output size is only known after the scan. */
final class IntBuffer {

  private int[] data;
  private int size;

  IntBuffer(int initialCapacity) {
    data = new int[Math.max(16, initialCapacity)];
  }

  void clear() {
    size = 0;
  }

  void add(int value) {
    if (size == data.length) {
      data = Arrays.copyOf(data, data.length + (data.length >>> 1));
    }
    data[size++] = value;
  }

  int size() {
    return size;
  }

  int[] array() {
    return data;
  }

  int[] toArray() {
    return Arrays.copyOf(data, size);
  }

  /**
   * Appends every index i with |x[i]| > threshold (or >= when inclusive), in ascending order. The comparison is on
   * magnitude bit patterns, which order like |x| for finite values and put NaN and infinities above every finite
   * threshold: a non-finite entry is always collected, so {@link #requireFiniteSelected} detects it by looking at
   * the collected entries only, without a pass of its own.
   *
   * @param threshold finite, >= 0
   */
  void addAbove(float[] x, float threshold, boolean inclusive) {
    int[] d = data;
    int n = size;
    int key = Float.floatToRawIntBits(threshold) & 0x7fffffff;
    if (inclusive) {
      key--; // key(x) >= t  <=>  key(x) > t - 1; t = 0 gives -1, below every key
    }
    for (int i = 0; i < x.length; i++) {
      if ((Float.floatToRawIntBits(x[i]) & 0x7fffffff) > key) {
        if (n == d.length) {
          d = Arrays.copyOf(d, d.length + (d.length >>> 1));
        }
        d[n++] = i;
      }
    }
    data = d;
    size = n;
  }

  /** Throws the non-finite error for x if any collected index holds NaN or an infinity. */
  void requireFiniteSelected(float[] x) {
    for (int j = 0; j < size; j++) {
      if (!Float.isFinite(x[data[j]])) {
        throw Checks.nonFinite("x", x);
      }
    }
  }
}
