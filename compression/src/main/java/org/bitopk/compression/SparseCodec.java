package org.bitopk.compression;

/**
 * The wire format of {@link SparseVector}: smaller than the naive 8 bytes per non-zero (int index + float value).
 *
 * <pre>
 * offset  size     field
 * 0       2        magic 0xB7 0x0C
 * 2       1        version (1)
 * 3       1        layout: bits 0-1 index layout (0 = delta varint, 1 = bitmap, 2 = dense), bit 2 = FP16 values,
 *                  bit 3 = power-of-two values (never both bits 2 and 3)
 * 4       1..5     dimension, unsigned LEB128 varint, >= 1
 * ..      1..5     nnz, unsigned LEB128 varint, <= dimension
 * ..               indices: DELTA  nnz varints: index[0] + 1, then index[i] - index[i-1] (each >= 1)
 *                           BITMAP ceil(dimension / 8) bytes, bit (i mod 8) of byte i/8 set iff i is stored
 *                           DENSE  nothing: nnz == dimension and the indices are 0 .. dimension-1
 * ..               values:  nnz values, FP32 (4 bytes) or FP16 (2 bytes), little-endian, in index order
 *                           POW2   ceil(9 nnz / 8) bytes: value i is the 9-bit code at bits [9i, 9i + 9) of the
 *                                  section read as one little-endian bit string (bit b is bit b mod 8 of byte b/8);
 *                                  padding bits after the last code are 0
 * </pre>
 *
 * <p><b>Power-of-two values.</b> When every value is ±0 or ±2^e with a normal exponent (e in [-126, 127]), which is
 * what natural compression sends, each value is stored as the 9-bit code formed by its float32 sign and 8-bit
 * biased exponent fields (bits 31-23), and decodes as {@code Float.intBitsToFloat(code << 23)}: exact, 9 bits
 * instead of 32. {@link #encode} uses it whenever it applies, since it is exact and smaller; for an FP16 request
 * only when every value is also exactly a half (zero or 2^e with e in [-24, 15]), so the decoded values are those
 * FP16 would give. The code with exponent field 255 is refused by the decoder (it would be infinite).
 *
 * <p>{@link #encode} computes the exact size of every applicable layout and writes the smallest (ties prefer
 * delta, then bitmap). Delta varints win at the low densities of gradient sparsification (~2 bytes per index at
 * density 0.001); the bitmap (1 bit per coordinate) wins above roughly 1/16; dense wins only when every coordinate
 * is stored. Dense is restricted to {@code nnz == dimension} because a stored zero and an absent coordinate would
 * otherwise be indistinguishable, and the round trip must be exact.
 *
 * <p>Deltas are stored as {@code index[i] - index[i-1]} with an implicit {@code index[-1] = -1}, so every delta of a
 * valid vector is at least 1 and the decoder can report a zero delta as a non-increasing index.
 */
public final class SparseCodec {

  static final int MAGIC_0 = 0xB7;
  static final int MAGIC_1 = 0x0C;
  static final int VERSION = 1;
  static final int LAYOUT_DELTA = 0;
  static final int LAYOUT_BITMAP = 1;
  static final int LAYOUT_DENSE = 2;
  static final int FLAG_FP16 = 4;
  static final int FLAG_POW2 = 8;

  private SparseCodec() {}

  /**
   * Encodes {@code v} in the smallest layout.
   *
   * @throws IllegalArgumentException for FP16 when a value's magnitude rounds above 65504 (|v| >= 65520)
   */
  public static byte[] encode(SparseVector v, ValueFormat format) {
    if (v == null || format == null) {
      throw new IllegalArgumentException("vector and format must not be null");
    }
    int[] idx = v.indicesUnsafe();
    float[] val = v.valuesUnsafe();
    int d = v.dimension();
    int nnz = idx.length;
    if (format == ValueFormat.FP16) {
      for (int i = 0; i < nnz; i++) {
        if (!(Math.abs(val[i]) < 65520f)) {
          throw new IllegalArgumentException("value " + val[i] + " at index " + idx[i]
              + " overflows FP16; expected |value| < 65520 (largest half 65504), or use FP32");
        }
      }
    }
    long indexPlan = indexPlan(idx, d);
    int layout = (int) (indexPlan & 3);
    long bitmapBytes = (d + 7L) >>> 3;
    boolean pow2 = powersOfTwo(val, format);
    long total = 4L + varintSize(d) + varintSize(nnz) + (indexPlan >>> 2) + valueBytes(nnz, format, pow2);
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("encoded size " + total + " bytes exceeds the 2 GiB array limit");
    }
    byte[] out = new byte[(int) total];
    out[0] = (byte) MAGIC_0;
    out[1] = (byte) MAGIC_1;
    out[2] = (byte) VERSION;
    out[3] = (byte) (layout | (pow2 ? FLAG_POW2 : format == ValueFormat.FP16 ? FLAG_FP16 : 0));
    int pos = writeVarint(out, 4, d);
    pos = writeVarint(out, pos, nnz);
    if (layout == LAYOUT_DELTA) {
      int previous = -1;
      for (int index : idx) {
        pos = writeVarint(out, pos, index - previous);
        previous = index;
      }
    } else if (layout == LAYOUT_BITMAP) {
      for (int index : idx) {
        out[pos + (index >>> 3)] |= (byte) (1 << (index & 7));
      }
      pos += (int) bitmapBytes;
    }
    if (pow2) {
      // Eight codes are 72 bits, nine whole bytes: the first seven and bit 0 of the eighth fill a long.
      int i = 0;
      for (; i + 8 <= nnz; i += 8) {
        long word = 0;
        for (int j = 0; j < 7; j++) {
          word |= (long) (Float.floatToRawIntBits(val[i + j]) >>> 23) << (9 * j);
        }
        int last = Float.floatToRawIntBits(val[i + 7]) >>> 23;
        word |= (long) last << 63;
        for (int b = 0; b < 8; b++) {
          out[pos++] = (byte) (word >>> (8 * b));
        }
        out[pos++] = (byte) (last >>> 1);
      }
      long acc = 0;
      int bits = 0;
      for (; i < nnz; i++) {
        acc |= (long) (Float.floatToRawIntBits(val[i]) >>> 23) << bits;
        bits += 9;
        while (bits >= 8) {
          out[pos++] = (byte) acc;
          acc >>>= 8;
          bits -= 8;
        }
      }
      if (bits > 0) {
        out[pos++] = (byte) acc;
      }
    } else if (format == ValueFormat.FP16) {
      for (int i = 0; i < nnz; i++) {
        short h = Half.fromFloat(val[i]);
        out[pos++] = (byte) h;
        out[pos++] = (byte) (h >>> 8);
      }
    } else {
      for (int i = 0; i < nnz; i++) {
        int bits = Float.floatToRawIntBits(val[i]);
        out[pos++] = (byte) bits;
        out[pos++] = (byte) (bits >>> 8);
        out[pos++] = (byte) (bits >>> 16);
        out[pos++] = (byte) (bits >>> 24);
      }
    }
    return out;
  }

  /**
   * The length of {@code encode(v, format)}, computed without encoding: the bytes counted as communication. (It does
   * not check FP16 overflow, which {@link #encode} refuses.)
   */
  public static long encodedLength(SparseVector v, ValueFormat format) {
    if (v == null || format == null) {
      throw new IllegalArgumentException("vector and format must not be null");
    }
    int d = v.dimension();
    int nnz = v.nnz();
    return 4L + varintSize(d) + varintSize(nnz) + (indexPlan(v.indicesUnsafe(), d) >>> 2)
        + valueBytes(nnz, format, powersOfTwo(v.valuesUnsafe(), format));
  }

  /**
   * The smallest index layout and its size in bytes, as {@code bytes << 2 | layout} (ties prefer delta, then
   * bitmap; dense only when every coordinate is stored).
   */
  private static long indexPlan(int[] idx, int d) {
    if (idx.length == d) {
      return LAYOUT_DENSE; // delta and bitmap both take at least a byte
    }
    long deltaBytes = 0;
    int previous = -1;
    for (int index : idx) {
      deltaBytes += varintSize(index - previous);
      previous = index;
    }
    long bitmapBytes = (d + 7L) >>> 3;
    return bitmapBytes < deltaBytes ? bitmapBytes << 2 | LAYOUT_BITMAP : deltaBytes << 2 | LAYOUT_DELTA;
  }

  /** Whether every value is ±0 or a normal ±2^e, and for FP16 also exactly a half: the 9-bit codes apply. */
  private static boolean powersOfTwo(float[] val, ValueFormat format) {
    int low = format == ValueFormat.FP16 ? 127 - 24 : 1;
    int high = format == ValueFormat.FP16 ? 127 + 15 : 254;
    int bad = 0;
    for (float v : val) {
      int bits = Float.floatToRawIntBits(v);
      int exponent = (bits >>> 23) & 0xff;
      // ±0, or a zero mantissa with an exponent field in [low, high]; branch-free so the scan stays cheap
      int zero = (bits & 0x7fffffff) == 0 ? 1 : 0;
      int ok = (bits & 0x007fffff) == 0 && exponent >= low && exponent <= high ? 1 : 0;
      bad |= (zero | ok) ^ 1;
    }
    return bad == 0;
  }

  private static long valueBytes(int nnz, ValueFormat format, boolean pow2) {
    if (pow2) {
      return (9L * nnz + 7) >>> 3;
    }
    return (long) (format == ValueFormat.FP16 ? 2 : 4) * nnz;
  }

  /**
   * Decodes bytes written by {@link #encode}.
   *
   * @throws IllegalArgumentException naming the defect for truncated input, bad magic or version, unknown layout,
   *     an out-of-range dimension or nnz, out-of-range or non-increasing indices, a bitmap that disagrees with nnz,
   *     non-finite values, or trailing bytes
   */
  public static SparseVector decode(byte[] bytes) {
    if (bytes == null) {
      throw new IllegalArgumentException("bytes must not be null");
    }
    if (bytes.length < 6) {
      throw new IllegalArgumentException("truncated: " + bytes.length + " bytes; expected at least a 6-byte header");
    }
    if ((bytes[0] & 0xff) != MAGIC_0 || (bytes[1] & 0xff) != MAGIC_1) {
      throw new IllegalArgumentException(String.format(
          "bad magic 0x%02X 0x%02X; expected 0x%02X 0x%02X (not a sparse vector)",
          bytes[0] & 0xff, bytes[1] & 0xff, MAGIC_0, MAGIC_1));
    }
    if (bytes[2] != VERSION) {
      throw new IllegalArgumentException("unsupported version " + (bytes[2] & 0xff) + "; expected " + VERSION);
    }
    int flags = bytes[3] & 0xff;
    int layout = flags & 3;
    if ((flags & ~15) != 0 || layout == 3 || (flags & (FLAG_FP16 | FLAG_POW2)) == (FLAG_FP16 | FLAG_POW2)) {
      throw new IllegalArgumentException("unknown layout byte 0x" + Integer.toHexString(flags)
          + "; expected index layout 0-2 and either the FP16 flag 0x4 or the power-of-two flag 0x8");
    }
    boolean fp16 = (flags & FLAG_FP16) != 0;
    boolean pow2 = (flags & FLAG_POW2) != 0;
    long[] cursor = {4};
    int d = readVarint(bytes, cursor, "dimension");
    if (d < 1) {
      throw new IllegalArgumentException("dimension = " + d + " is out of range; expected dimension >= 1");
    }
    int nnz = readVarint(bytes, cursor, "nnz");
    if (nnz > d) {
      throw new IllegalArgumentException("nnz = " + nnz + " is out of range; expected nnz <= dimension " + d);
    }
    long valueBytes = pow2 ? (9L * nnz + 7) >>> 3 : (long) nnz * (fp16 ? 2 : 4);
    int pos = (int) cursor[0];
    // Bound nnz by the remaining bytes before allocating, so a corrupt header cannot trigger a huge allocation.
    if (valueBytes > bytes.length - pos) {
      throw new IllegalArgumentException("truncated: " + nnz + " values need " + valueBytes
          + " bytes but only " + (bytes.length - pos) + " remain");
    }
    int[] idx = new int[nnz];
    if (layout == LAYOUT_DELTA) {
      int previous = -1;
      for (int i = 0; i < nnz; i++) {
        int delta = readVarint(bytes, cursor, "index delta " + i);
        if (delta == 0) {
          throw new IllegalArgumentException("index[" + i + "] = " + previous + " is not greater than index["
              + (i - 1) + "] = " + previous + "; expected strictly increasing indices");
        }
        long index = (long) previous + delta;
        if (index >= d) {
          throw new IllegalArgumentException("index[" + i + "] = " + index + " is out of range; expected index < "
              + d + " (the dimension)");
        }
        idx[i] = (int) index;
        previous = (int) index;
      }
      pos = (int) cursor[0];
    } else if (layout == LAYOUT_BITMAP) {
      int bitmapBytes = (int) ((d + 7L) >>> 3);
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
          idx[n++] = index;
          bits &= bits - 1;
        }
      }
      if (n != nnz) {
        throw new IllegalArgumentException("bitmap has " + n + " bits set; expected nnz = " + nnz);
      }
      pos += bitmapBytes;
    } else {
      if (nnz != d) {
        throw new IllegalArgumentException("dense layout with nnz = " + nnz + "; expected nnz == dimension " + d);
      }
      for (int i = 0; i < nnz; i++) {
        idx[i] = i;
      }
    }
    long expectedEnd = pos + valueBytes;
    if (expectedEnd > bytes.length) {
      throw new IllegalArgumentException("truncated: values need " + valueBytes + " bytes but only "
          + (bytes.length - pos) + " remain");
    }
    if (expectedEnd < bytes.length) {
      throw new IllegalArgumentException((bytes.length - expectedEnd) + " trailing bytes after the last value; "
          + "expected exactly " + expectedEnd + " bytes");
    }
    float[] val = new float[nnz];
    if (pow2) {
      decodePowersOfTwo(bytes, pos, idx, val);
      return SparseVector.trusted(d, idx, val);
    }
    for (int i = 0; i < nnz; i++) {
      float v;
      if (fp16) {
        v = Half.toFloat((short) ((bytes[pos] & 0xff) | (bytes[pos + 1] << 8)));
        pos += 2;
      } else {
        v = Float.intBitsToFloat((bytes[pos] & 0xff) | (bytes[pos + 1] & 0xff) << 8
            | (bytes[pos + 2] & 0xff) << 16 | (bytes[pos + 3] & 0xff) << 24);
        pos += 4;
      }
      if (!Float.isFinite(v)) {
        throw new IllegalArgumentException("value[" + i + "] at index " + idx[i] + " is " + v
            + "; expected finite values");
      }
      val[i] = v;
    }
    return SparseVector.trusted(d, idx, val);
  }

  private static void decodePowersOfTwo(byte[] bytes, int pos, int[] idx, float[] val) {
    long acc = 0;
    int bits = 0;
    for (int i = 0; i < val.length; i++) {
      while (bits < 9) {
        acc |= (long) (bytes[pos++] & 0xff) << bits;
        bits += 8;
      }
      int code = (int) acc & 0x1ff;
      acc >>>= 9;
      bits -= 9;
      if ((code & 0xff) == 0xff) {
        throw new IllegalArgumentException("value[" + i + "] at index " + idx[i] + " has power-of-two code 0x"
            + Integer.toHexString(code) + " (exponent field 255, not finite); expected finite values");
      }
      val[i] = Float.intBitsToFloat(code << 23);
    }
    if (acc != 0) {
      throw new IllegalArgumentException("power-of-two padding bits after the last value are not zero; expected "
          + "zero padding");
    }
  }

  /** The layout {@link #encode} chose for these bytes, for diagnostics: "delta", "bitmap" or "dense". */
  public static String layoutName(byte[] encoded) {
    if (encoded == null || encoded.length < 4) {
      throw new IllegalArgumentException("truncated: expected at least a 4-byte header");
    }
    switch (encoded[3] & 3) {
      case LAYOUT_DELTA:
        return "delta";
      case LAYOUT_BITMAP:
        return "bitmap";
      case LAYOUT_DENSE:
        return "dense";
      default:
        throw new IllegalArgumentException("unknown layout " + (encoded[3] & 3));
    }
  }

  static int varintSize(int value) {
    // Unsigned LEB128: 7 payload bits per byte.
    int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
    return (bits + 6) / 7;
  }

  private static int writeVarint(byte[] out, int pos, int value) {
    while ((value & ~0x7f) != 0) {
      out[pos++] = (byte) ((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out[pos++] = (byte) value;
    return pos;
  }

  /** Reads an unsigned varint that must fit a non-negative int; rejects truncation and overlong encodings. */
  private static int readVarint(byte[] in, long[] cursor, String field) {
    int pos = (int) cursor[0];
    long result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos >= in.length) {
        throw new IllegalArgumentException("truncated: input ends inside " + field + " at byte " + pos);
      }
      int b = in[pos++] & 0xff;
      result |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        if (result > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(field + " = " + result + " is out of range; expected <= "
              + Integer.MAX_VALUE);
        }
        cursor[0] = pos;
        return (int) result;
      }
    }
    throw new IllegalArgumentException(field + " varint is longer than 5 bytes at byte " + cursor[0]);
  }
}
