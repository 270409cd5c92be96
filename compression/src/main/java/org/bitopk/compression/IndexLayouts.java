package org.bitopk.compression;

import static org.bitopk.compression.SparseCodec.LAYOUT_BITMAP;
import static org.bitopk.compression.SparseCodec.LAYOUT_DELTA;
import static org.bitopk.compression.SparseCodec.LAYOUT_DENSE;
import static org.bitopk.compression.SparseCodec.LAYOUT_RICE;

/**
 * The index section of {@link SparseCodec}: which layout (delta, bitmap, dense, Rice) a vector's indices take, and
 * writing and reading each. A plan is {@code bytes << 8 | riceParameter << 2 | layout}.
 */
final class IndexLayouts {

  private IndexLayouts() {}

  /**
   * The smallest index layout, its size in bytes and the Rice parameter (ties prefer delta, then bitmap, then Rice;
   * dense only when every coordinate is stored).
   */
  static long smallest(int[] idx, int d) {
    if (idx.length == d) {
      return LAYOUT_DENSE; // delta, bitmap and Rice all take at least a byte
    }
    long deltaBytes = deltaBytes(idx);
    long bitmapBytes = bitmapBytes(d);
    long best = bitmapBytes < deltaBytes ? bitmapBytes << 8 | LAYOUT_BITMAP : deltaBytes << 8 | LAYOUT_DELTA;
    if (idx.length > 0) {
      int parameter = RiceGaps.parameter(idx);
      long riceBytes = RiceGaps.bytes(idx, parameter);
      if (riceBytes < best >>> 8) {
        best = riceBytes << 8 | parameter << 2 | LAYOUT_RICE;
      }
    }
    return best;
  }

  /** The plan of {@link #smallest} for one layout, whatever its size. */
  static long in(int[] idx, int d, int layout) {
    switch (layout) {
      case LAYOUT_DELTA -> {
        return deltaBytes(idx) << 8 | LAYOUT_DELTA;
      }
      case LAYOUT_BITMAP -> {
        return bitmapBytes(d) << 8 | LAYOUT_BITMAP;
      }
      case LAYOUT_RICE -> {
        int parameter = idx.length == 0 ? 0 : RiceGaps.parameter(idx);
        return RiceGaps.bytes(idx, parameter) << 8 | parameter << 2 | LAYOUT_RICE;
      }
      case LAYOUT_DENSE -> {
        if (idx.length != d) {
          throw new IllegalArgumentException("the dense layout stores every coordinate; this vector has "
              + idx.length + " of " + d);
        }
        return LAYOUT_DENSE;
      }
      default -> throw new IllegalArgumentException("no index layout " + layout);
    }
  }

  private static long deltaBytes(int[] idx) {
    long bytes = 0;
    int previous = -1;
    for (int index : idx) {
      bytes += Varints.size(index - previous);
      previous = index;
    }
    return bytes;
  }

  private static long bitmapBytes(int d) {
    return (d + 7L) >>> 3;
  }

  /** Writes the indices as {@code plan} says from {@code pos} of a zeroed {@code out}; returns the position after. */
  static int write(byte[] out, int pos, int[] idx, int d, long plan) {
    switch ((int) (plan & 3)) {
      case LAYOUT_DELTA -> {
        int previous = -1;
        for (int index : idx) {
          pos = Varints.write(out, pos, index - previous);
          previous = index;
        }
        return pos;
      }
      case LAYOUT_BITMAP -> {
        for (int index : idx) {
          out[pos + (index >>> 3)] |= (byte) (1 << (index & 7));
        }
        return pos + (int) bitmapBytes(d);
      }
      case LAYOUT_RICE -> {
        return RiceGaps.write(out, pos, idx, (int) (plan >>> 2) & 63);
      }
      default -> {
        return pos;
      }
    }
  }

  /**
   * Reads the {@code nnz} indices of a {@code layout} section at {@code pos} into {@code idx[at ..]}, checking that
   * they increase strictly and stay below {@code d}; returns the position after.
   */
  static int read(byte[] bytes, int pos, int layout, int d, int nnz, int[] idx, int at) {
    if (layout == LAYOUT_DELTA) {
      long[] cursor = {pos};
      int previous = -1;
      for (int i = 0; i < nnz; i++) {
        int delta = Varints.read(bytes, cursor, "index delta " + i);
        if (delta == 0) {
          throw new IllegalArgumentException("index[" + i + "] = " + previous + " is not greater than index["
              + (i - 1) + "] = " + previous + "; expected strictly increasing indices");
        }
        long index = (long) previous + delta;
        if (index >= d) {
          throw new IllegalArgumentException("index[" + i + "] = " + index + " is out of range; expected index < "
              + d + " (the dimension)");
        }
        idx[at + i] = (int) index;
        previous = (int) index;
      }
      return (int) cursor[0];
    }
    if (layout == LAYOUT_BITMAP) {
      return readBitmap(bytes, pos, d, nnz, idx, at);
    }
    if (layout == LAYOUT_RICE) {
      return RiceGaps.read(bytes, pos, d, idx, at, nnz);
    }
    if (nnz != d) {
      throw new IllegalArgumentException("dense layout with nnz = " + nnz + "; expected nnz == dimension " + d);
    }
    for (int i = 0; i < nnz; i++) {
      idx[at + i] = i;
    }
    return pos;
  }

  private static int readBitmap(byte[] bytes, int pos, int d, int nnz, int[] idx, int at) {
    int bitmapBytes = (int) bitmapBytes(d);
    if (bitmapBytes > bytes.length - pos) {
      throw new IllegalArgumentException("truncated: bitmap needs " + bitmapBytes + " bytes but only "
          + (bytes.length - pos) + " remain");
    }
    int n = 0;
    for (int b = 0; b < bitmapBytes; b++) {
      int bits = bytes[pos + b] & 0xff;
      while (bits != 0) {
        int index = (b << 3) + Integer.numberOfTrailingZeros(bits);
        if (index >= d) {
          throw new IllegalArgumentException("bitmap bit " + index + " is out of range; expected bits < " + d
              + " (the dimension)");
        }
        if (n == nnz) {
          throw new IllegalArgumentException("bitmap has more than nnz = " + nnz + " bits set");
        }
        idx[at + n++] = index;
        bits &= bits - 1;
      }
    }
    if (n != nnz) {
      throw new IllegalArgumentException("bitmap has " + n + " bits set; expected nnz = " + nnz);
    }
    return pos + bitmapBytes;
  }

  /** The name of a layout, for diagnostics: "delta", "bitmap", "dense" or "rice". */
  static String name(int layout) {
    switch (layout) {
      case LAYOUT_DELTA:
        return "delta";
      case LAYOUT_BITMAP:
        return "bitmap";
      case LAYOUT_DENSE:
        return "dense";
      default:
        return "rice";
    }
  }
}
