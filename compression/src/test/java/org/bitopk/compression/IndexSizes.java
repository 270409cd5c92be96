package org.bitopk.compression;

/**
 * Index-section sizes of the wire format computed from its definition, independently of the encoder: the delta
 * varints, the bitmap, and the Golomb-Rice codes at the best of all 31 parameters (found by trying each).
 */
final class IndexSizes {

  private IndexSizes() {}

  static long leb128(long value) {
    long n = 1;
    while (value >= 128) {
      value >>>= 7;
      n++;
    }
    return n;
  }

  static long deltaBytes(int[] idx) {
    long bytes = 0;
    long previous = -1;
    for (int index : idx) {
      bytes += leb128(index - previous);
      previous = index;
    }
    return bytes;
  }

  static long bitmapBytes(int d) {
    return (d + 7L) / 8;
  }

  /** One parameter byte and the codes of every gap minus one, for the best parameter; MAX_VALUE for no index. */
  static long riceBytes(int[] idx) {
    if (idx.length == 0) {
      return Long.MAX_VALUE;
    }
    long best = Long.MAX_VALUE;
    for (int b = 0; b <= 30; b++) {
      long bits = 0;
      long previous = -1;
      for (int index : idx) {
        long x = index - previous - 1;
        bits += x / (1L << b) + 1 + b; // unary quotient, its stop bit, b remainder bits
        previous = index;
      }
      best = Math.min(best, 1 + (bits + 7) / 8);
    }
    return best;
  }

  /** The index bytes before Rice codes existed: nothing when dense, else the smaller of delta and bitmap. */
  static long withoutRice(int[] idx, int d) {
    return idx.length == d ? 0 : Math.min(deltaBytes(idx), bitmapBytes(d));
  }

  /** The index bytes the encoder must choose: the smallest layout. */
  static long smallest(int[] idx, int d) {
    return idx.length == d ? 0 : Math.min(withoutRice(idx, d), riceBytes(idx));
  }

  /** The header: magic, version, layout byte, and the dimension and nnz varints. */
  static long header(int d, int nnz) {
    return 4 + leb128(d) + leb128(nnz);
  }
}
