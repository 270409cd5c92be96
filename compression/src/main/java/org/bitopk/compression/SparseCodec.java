package org.bitopk.compression;

/**
 * The wire format of {@link SparseVector}: smaller than the naive 8 bytes per non-zero (int index + float value).
 *
 * <pre>
 * offset  size     field
 * 0       2        magic 0xB7 0x0C
 * 2       1        version (1)
 * 3       1        layout: bits 0-1 index layout (0 = delta varint, 1 = bitmap, 2 = dense), bit 2 = FP16 values
 * 4       1..5     dimension, unsigned LEB128 varint, >= 1
 * ..      1..5     nnz, unsigned LEB128 varint, <= dimension
 * ..               indices: DELTA  nnz varints: index[0] + 1, then index[i] - index[i-1] (each >= 1)
 *                           BITMAP ceil(dimension / 8) bytes, bit (i mod 8) of byte i/8 set iff i is stored
 *                           DENSE  nothing: nnz == dimension and the indices are 0 .. dimension-1
 * ..               values:  nnz values, FP32 (4 bytes) or FP16 (2 bytes), little-endian, in index order
 * </pre>
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
    long deltaBytes = 0;
    int previous = -1;
    for (int index : idx) {
      deltaBytes += varintSize(index - previous);
      previous = index;
    }
    long bitmapBytes = (d + 7L) >>> 3;
    int layout = LAYOUT_DELTA;
    long indexBytes = deltaBytes;
    if (bitmapBytes < indexBytes) {
      layout = LAYOUT_BITMAP;
      indexBytes = bitmapBytes;
    }
    if (nnz == d && indexBytes > 0) {
      layout = LAYOUT_DENSE;
      indexBytes = 0;
    }
    int valueSize = format == ValueFormat.FP16 ? 2 : 4;
    long total = 4L + varintSize(d) + varintSize(nnz) + indexBytes + (long) valueSize * nnz;
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("encoded size " + total + " bytes exceeds the 2 GiB array limit");
    }
    byte[] out = new byte[(int) total];
    out[0] = (byte) MAGIC_0;
    out[1] = (byte) MAGIC_1;
    out[2] = (byte) VERSION;
    out[3] = (byte) (layout | (format == ValueFormat.FP16 ? FLAG_FP16 : 0));
    int pos = writeVarint(out, 4, d);
    pos = writeVarint(out, pos, nnz);
    if (layout == LAYOUT_DELTA) {
      previous = -1;
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
    if (format == ValueFormat.FP16) {
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
    if ((flags & ~7) != 0 || layout == 3) {
      throw new IllegalArgumentException("unknown layout byte 0x" + Integer.toHexString(flags)
          + "; expected index layout 0-2 and optional FP16 flag 0x4");
    }
    boolean fp16 = (flags & FLAG_FP16) != 0;
    long[] cursor = {4};
    int d = readVarint(bytes, cursor, "dimension");
    if (d < 1) {
      throw new IllegalArgumentException("dimension = " + d + " is out of range; expected dimension >= 1");
    }
    int nnz = readVarint(bytes, cursor, "nnz");
    if (nnz > d) {
      throw new IllegalArgumentException("nnz = " + nnz + " is out of range; expected nnz <= dimension " + d);
    }
    int valueSize = fp16 ? 2 : 4;
    int pos = (int) cursor[0];
    // Bound nnz by the remaining bytes before allocating, so a corrupt header cannot trigger a huge allocation.
    if ((long) nnz * valueSize > bytes.length - pos) {
      throw new IllegalArgumentException("truncated: " + nnz + " values need " + (long) nnz * valueSize
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
    long expectedEnd = pos + (long) nnz * valueSize;
    if (expectedEnd > bytes.length) {
      throw new IllegalArgumentException("truncated: values need " + (long) nnz * valueSize + " bytes but only "
          + (bytes.length - pos) + " remain");
    }
    if (expectedEnd < bytes.length) {
      throw new IllegalArgumentException((bytes.length - expectedEnd) + " trailing bytes after the last value; "
          + "expected exactly " + expectedEnd + " bytes");
    }
    float[] val = new float[nnz];
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
