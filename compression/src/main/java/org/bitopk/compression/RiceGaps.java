package org.bitopk.compression;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Golomb-Rice coding of the gaps between sorted indices, the index layout {@link SparseCodec} picks when it is the
 * smallest. With {@code g = index[i] - index[i-1]} ({@code index[-1] = -1}, so {@code g >= 1}) and parameter b, the
 * code of {@code x = g - 1} is {@code x >>> b} one-bits, a zero bit, then the low b bits of x (least significant
 * first). Bits are packed little-endian: bit n of the section is bit {@code n mod 8} of byte {@code n / 8}, the last
 * byte padded with zero bits. The section is one byte holding b (0 to 30) followed by the codes.
 *
 * <p>For indices drawn uniformly at density ρ the gaps are nearly geometric, for which Rice codes are within a few
 * percent of the entropy floor {@code log2 C(d, k) / k} bits per index (about 4.8 bits against 4.7 at ρ = 0.1, 11.5
 * against 11.4 at ρ = 0.001), where a byte-aligned gap varint costs at least 8 bits and the bitmap 1/ρ.
 *
 * <p>The parameter is the exact optimum for the message: the size {@code k (b + 1) + sum(x >>> b)} is convex in b (its
 * increments {@code k - sum ceil((x >>> b) / 2)} never decrease), so a walk downhill from the geometric estimate
 * {@code log2(mean gap · ln 2)} ends at the smallest size.
 */
final class RiceGaps {

  private static final VarHandle LITTLE_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Largest parameter: a 31-bit remainder would not leave room for the unary part's overflow checks. */
  static final int MAX_PARAMETER = 30;

  private RiceGaps() {}

  /** The optimal parameter for these strictly ascending indices (at least one). */
  static int parameter(int[] idx) {
    int k = idx.length;
    double meanGap = ((double) idx[k - 1] + 1) / k;
    int b = (int) Math.floor(Math.log(meanGap * Math.log(2)) / Math.log(2));
    b = Math.max(0, Math.min(MAX_PARAMETER, b));
    long here = codeBits(idx, b);
    while (b > 0) {
      long lower = codeBits(idx, b - 1);
      if (lower > here) {
        break;
      }
      b--;
      here = lower;
    }
    while (b < MAX_PARAMETER) {
      long higher = codeBits(idx, b + 1);
      if (higher >= here) {
        break;
      }
      b++;
      here = higher;
    }
    return b;
  }

  /** The bits of the codes alone (without the parameter byte and padding) for parameter b. */
  static long codeBits(int[] idx, int b) {
    long quotients = 0;
    int previous = -1;
    for (int index : idx) {
      quotients += (index - previous - 1) >>> b;
      previous = index;
    }
    return quotients + (long) idx.length * (b + 1);
  }

  /** The section's size in bytes: the parameter byte and the codes, padded to a byte. */
  static long bytes(int[] idx, int b) {
    return 1 + ((codeBits(idx, b) + 7) >>> 3);
  }

  /** Writes the section at {@code pos} of a zeroed array; returns the position after it. */
  static int write(byte[] out, int pos, int[] idx, int b) {
    out[pos++] = (byte) b;
    long bit = (long) pos << 3;
    int previous = -1;
    long mask = (1L << b) - 1;
    for (int index : idx) {
      int x = index - previous - 1;
      previous = index;
      for (int q = x >>> b; q > 0; q--) {
        out[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
        bit++;
      }
      bit++; // the terminating zero
      long remainder = x & mask;
      for (int j = 0; j < b; j++, bit++) {
        if ((remainder >>> j & 1) != 0) {
          out[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
        }
      }
    }
    return (int) ((bit + 7) >>> 3);
  }

  /** Reads the section at {@code pos} into all of {@code idx}: {@link #read(byte[], int, int, int[], int, int)}. */
  static int read(byte[] in, int pos, int d, int[] idx) {
    return read(in, pos, d, idx, 0, idx.length);
  }

  /**
   * Reads the section at {@code pos} into {@code idx[at..at + nnz)}; returns the position after it.
   *
   * <p>An index whose code lies within the next 64 bits of the input is read from one little-endian word (the run of
   * ones by a trailing-zero count, the remainder by a mask); any other, and any that would be out of range, is read
   * bit group by bit group by {@link #readSlowly}, which makes every check and names every defect. Both give the
   * same index for a valid code.
   *
   * @throws IllegalArgumentException for a bad parameter, truncation, an index at or beyond the dimension, or
   *     padding bits that are not zero
   */
  static int read(byte[] in, int pos, int d, int[] idx, int at, int nnz) {
    if (pos >= in.length) {
      throw new IllegalArgumentException("truncated: input ends before the Rice parameter at byte " + pos);
    }
    int b = in[pos++] & 0xff;
    if (b > MAX_PARAMETER) {
      throw new IllegalArgumentException("Rice parameter " + b + " is out of range; expected 0 to "
          + MAX_PARAMETER);
    }
    long bit = (long) pos << 3;
    long previous = -1;
    long mask = (1L << b) - 1;
    int lastWord = in.length - 8;
    for (int i = 0; i < nnz; i++) {
      int byteAt = (int) (bit >>> 3);
      if (byteAt <= lastWord) {
        int skip = (int) (bit & 7);
        long word = (long) LITTLE_ENDIAN_LONG.get(in, byteAt) >>> skip;
        int ones = Long.numberOfTrailingZeros(~word);
        if (ones + 1 + b <= 64 - skip) {
          long index = previous + 1 + ((long) ones << b) + ((word >>> ones >>> 1) & mask);
          if (index < d) {
            idx[at + i] = (int) index;
            previous = index;
            bit += ones + 1 + b;
            continue;
          }
        }
      }
      bit = readSlowly(in, bit, d, b, i, previous, idx, at);
      previous = idx[at + i];
    }
    int after = (int) ((bit + 7) >>> 3);
    if ((bit & 7) != 0 && (in[after - 1] & 0xff) >>> (bit & 7) != 0) {
      throw new IllegalArgumentException("Rice padding bits after the last index are not zero; expected zero "
          + "padding");
    }
    return after;
  }

  /** Index i of the section from {@code bit} on, with every check; returns the bit after its code. */
  private static long readSlowly(byte[] in, long bit, int d, int b, int i, long previous, int[] idx, int at) {
    long end = (long) in.length << 3;
    long quotient = 0;
    while (true) {
      if (bit >= end) {
        throw new IllegalArgumentException("truncated: input ends inside the Rice code of index " + i);
      }
      int word = (in[(int) (bit >>> 3)] & 0xff) >>> (bit & 7);
      int ones = Integer.numberOfTrailingZeros(~word);
      int available = 8 - (int) (bit & 7);
      if (ones < available) {
        quotient += ones;
        bit += ones + 1;
        break;
      }
      quotient += available;
      bit += available;
      if (quotient > d) {
        throw new IllegalArgumentException("index[" + i + "] is out of range; expected index < " + d
            + " (the dimension)");
      }
    }
    if (bit + b > end) {
      throw new IllegalArgumentException("truncated: input ends inside the Rice code of index " + i);
    }
    long remainder = 0;
    for (int j = 0; j < b; j++, bit++) {
      remainder |= (long) ((in[(int) (bit >>> 3)] >>> (bit & 7)) & 1) << j;
    }
    long index = previous + 1 + (quotient << b) + remainder;
    if (index >= d) {
      throw new IllegalArgumentException("index[" + i + "] = " + index + " is out of range; expected index < "
          + d + " (the dimension)");
    }
    idx[at + i] = (int) index;
    return bit;
  }
}
