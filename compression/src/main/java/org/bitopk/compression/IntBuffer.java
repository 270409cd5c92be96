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

  /** Appends every index i with |x[i]| > threshold (or >= when inclusive), in ascending order. */
  void addAbove(float[] x, float threshold, boolean inclusive) {
    int[] d = data;
    int n = size;
    if (inclusive) {
      for (int i = 0; i < x.length; i++) {
        if (Math.abs(x[i]) >= threshold) {
          if (n == d.length) {
            d = Arrays.copyOf(d, d.length + (d.length >>> 1));
          }
          d[n++] = i;
        }
      }
    } else {
      for (int i = 0; i < x.length; i++) {
        if (Math.abs(x[i]) > threshold) {
          if (n == d.length) {
            d = Arrays.copyOf(d, d.length + (d.length >>> 1));
          }
          d[n++] = i;
        }
      }
    }
    data = d;
    size = n;
  }
}
