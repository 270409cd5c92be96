package org.bitopk.compression;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The wire format of {@link SparseVector}: smaller than the naive 8 bytes per non-zero (int index + float value).
 *
 * <pre>
 * offset  size     field
 * 0       2        magic 0xB7 0x0C
 * 2       1        version (1)
 * 3       1        layout: bits 0-1 index layout (0 = delta varint, 1 = bitmap, 2 = dense, 3 = Rice), bits 2-5 at
 *                  most one value flag: 0x4 FP16, 0x8 power-of-two, 0x10 BF16, 0x20 INT8 (none: FP32)
 * 4       1..5     dimension, unsigned LEB128 varint, >= 1
 * ..      1..5     nnz, unsigned LEB128 varint, <= dimension
 * ..               indices: DELTA  nnz varints: index[0] + 1, then index[i] - index[i-1] (each >= 1)
 *                           BITMAP ceil(dimension / 8) bytes, bit (i mod 8) of byte i/8 set iff i is stored
 *                           DENSE  nothing: nnz == dimension and the indices are 0 .. dimension-1
 *                           RICE   1 byte parameter b, then the Golomb-Rice codes of the gaps minus one
 *                                  (see {@link RiceGaps}), padded with zero bits to a byte
 * ..               values:  nnz values in index order, little-endian: FP32 (4 bytes), FP16 or BF16 (2 bytes)
 *                           INT8   a float32 scale s, then nnz signed bytes q in [-127, 127]; value = q * s
 *                           POW2   ceil(9 nnz / 8) bytes: value i is the 9-bit code at bits [9i, 9i + 9) of the
 *                                  section read as one little-endian bit string (bit b is bit b mod 8 of byte b/8);
 *                                  padding bits after the last code are 0
 * </pre>
 *
 * <p><b>Value formats.</b> {@link #encode} writes {@code format.round(values)} (see {@link ValueFormat}); rounding is
 * idempotent, so a vector whose values are already exact in the format (what {@link ErrorFeedback} sends under a
 * narrower format) decodes to itself bit for bit.
 *
 * <p><b>Power-of-two values.</b> When every value is ±0 or ±2^e with a normal exponent (e in [-126, 127]), which is
 * what natural compression sends, each value is stored as the 9-bit code formed by its float32 sign and 8-bit
 * biased exponent fields (bits 31-23), and decodes as {@code Float.intBitsToFloat(code << 23)}: exact, 9 bits
 * instead of 32. {@link #encode} uses it whenever it applies, since it is exact and smaller; for a narrower format
 * only when every value is also exact in it (for FP16, zero or 2^e with e in [-24, 15]), so the decoded values are
 * those the format would give. The code with exponent field 255 is refused by the decoder (it would be infinite).
 *
 * <p>{@link #encode} computes the exact size of every applicable index layout and writes the smallest (ties prefer
 * delta, then bitmap, then Rice). Delta varints cost a whole number of bytes a gap (~2 bytes at density 0.001);
 * Rice codes come within a few percent of the floor {@code log2 C(d, k) / k} bits an index at every density, so
 * they win from about density 0.001 on; the bitmap (1 bit per coordinate) only wins for indices that crowd
 * together; dense wins only when every coordinate is stored. Dense is restricted to {@code nnz == dimension} because
 * a stored zero and an absent coordinate would otherwise be indistinguishable, and the round trip must be exact.
 *
 * <p>Deltas are stored as {@code index[i] - index[i-1]} with an implicit {@code index[-1] = -1}, so every delta of a
 * valid vector is at least 1 and the decoder can report a zero delta as a non-increasing index.
 */
public final class SparseCodec {

  private static final VarHandle LITTLE_ENDIAN_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  static final int MAGIC_0 = 0xB7;
  static final int MAGIC_1 = 0x0C;
  static final int VERSION = 1;
  static final int LAYOUT_DELTA = 0;
  static final int LAYOUT_BITMAP = 1;
  static final int LAYOUT_DENSE = 2;
  static final int LAYOUT_RICE = 3;
  static final int FLAG_FP16 = 4;
  static final int FLAG_POW2 = 8;
  static final int FLAG_BF16 = 16;
  static final int FLAG_INT8 = 32;

  private SparseCodec() {}

  /**
   * Encodes {@code v} in the smallest layout, its values rounded by {@code format.round} (FP32: unchanged).
   *
   * @throws IllegalArgumentException when a value overflows the format: for FP16 when its magnitude rounds above
   *     65504 (|v| >= 65520); for BF16 and INT8 only within an ulp of {@code Float.MAX_VALUE}
   */
  public static byte[] encode(SparseVector v, ValueFormat format) {
    return encode(v, format, -1);
  }

  /**
   * {@link #encode} in the given index layout ({@code LAYOUT_*}) instead of the smallest, or the smallest for -1:
   * for measuring each layout (the decoder reads any of them).
   *
   * @throws IllegalArgumentException also for {@code LAYOUT_DENSE} when not every coordinate is stored
   */
  static byte[] encode(SparseVector v, ValueFormat format, int layoutWanted) {
    if (v == null || format == null) {
      throw new IllegalArgumentException("vector and format must not be null");
    }
    int[] idx = v.indicesUnsafe();
    float[] raw = v.valuesUnsafe();
    int d = v.dimension();
    int nnz = idx.length;
    float[] val = format == ValueFormat.FP32 ? raw : format.round(raw);
    for (int i = 0; i < nnz; i++) {
      if (!Float.isFinite(val[i])) {
        throw new IllegalArgumentException("value " + raw[i] + " at index " + idx[i] + " overflows " + format
            + (format == ValueFormat.FP16 ? "; expected |value| < 65520 (largest half 65504), or use FP32"
                : "; expected a magnitude below Float.MAX_VALUE by more than an ulp, or use FP32"));
      }
    }
    long indexPlan = layoutWanted < 0 ? indexPlan(idx, d) : planIn(idx, d, layoutWanted);
    int layout = (int) (indexPlan & 3);
    long bitmapBytes = (d + 7L) >>> 3;
    boolean pow2 = powersOfTwo(raw, val, format);
    long total = 4L + varintSize(d) + varintSize(nnz) + (indexPlan >>> 8) + valueBytes(nnz, format, pow2);
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("encoded size " + total + " bytes exceeds the 2 GiB array limit");
    }
    byte[] out = new byte[(int) total];
    out[0] = (byte) MAGIC_0;
    out[1] = (byte) MAGIC_1;
    out[2] = (byte) VERSION;
    out[3] = (byte) (layout | (pow2 ? FLAG_POW2 : valueFlag(format)));
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
    } else if (layout == LAYOUT_RICE) {
      pos = RiceGaps.write(out, pos, idx, (int) (indexPlan >>> 2) & 63);
    }
    if (pow2) {
      writePowersOfTwo(out, pos, val);
    } else if (format == ValueFormat.FP16) {
      for (int i = 0; i < nnz; i++) {
        short h = Half.fromFloat(val[i]);
        out[pos++] = (byte) h;
        out[pos++] = (byte) (h >>> 8);
      }
    } else if (format == ValueFormat.BF16) {
      for (int i = 0; i < nnz; i++) {
        int bits = Float.floatToRawIntBits(val[i]);
        out[pos++] = (byte) (bits >>> 16);
        out[pos++] = (byte) (bits >>> 24);
      }
    } else if (format == ValueFormat.INT8) {
      float scale = ValueFormat.int8Scale(val);
      pos = writeFloat(out, pos, scale);
      for (int i = 0; i < nnz; i++) {
        out[pos++] = (byte) (scale == 0 ? 0 : ValueFormat.int8Code(val[i], scale));
      }
    } else {
      for (int i = 0; i < nnz; i++) {
        pos = writeFloat(out, pos, val[i]);
      }
    }
    return out;
  }

  /**
   * Encodes {@code v} in {@code format} when its values are already exact in it (what {@link ErrorFeedback} sends
   * under that format), else in FP32: the bytes always decode to {@code v} bit for bit. A message that lost or gained
   * entries after the step (an INT8 scale follows the largest value) or one a format could not hold goes in FP32.
   */
  public static byte[] encodeExactly(SparseVector v, ValueFormat format) {
    if (v == null || format == null) {
      throw new IllegalArgumentException("vector and format must not be null");
    }
    if (format != ValueFormat.FP32) {
      float[] values = v.valuesUnsafe();
      float[] rounded = format.round(values);
      for (int i = 0; i < values.length; i++) {
        if (Float.floatToRawIntBits(rounded[i]) != Float.floatToRawIntBits(values[i])) {
          return encode(v, ValueFormat.FP32);
        }
      }
    }
    return encode(v, format);
  }

  private static int writeFloat(byte[] out, int pos, float value) {
    int bits = Float.floatToRawIntBits(value);
    out[pos++] = (byte) bits;
    out[pos++] = (byte) (bits >>> 8);
    out[pos++] = (byte) (bits >>> 16);
    out[pos++] = (byte) (bits >>> 24);
    return pos;
  }

  private static void writePowersOfTwo(byte[] out, int pos, float[] val) {
    int nnz = val.length;
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
      out[pos] = (byte) acc;
    }
  }

  private static int valueFlag(ValueFormat format) {
    switch (format) {
      case FP16:
        return FLAG_FP16;
      case BF16:
        return FLAG_BF16;
      case INT8:
        return FLAG_INT8;
      default:
        return 0;
    }
  }

  /**
   * The length of {@code encode(v, format)}, computed without encoding: the bytes counted as communication. (It does
   * not check overflow, which {@link #encode} refuses.)
   */
  public static long encodedLength(SparseVector v, ValueFormat format) {
    if (v == null || format == null) {
      throw new IllegalArgumentException("vector and format must not be null");
    }
    int d = v.dimension();
    int nnz = v.nnz();
    float[] raw = v.valuesUnsafe();
    boolean pow2 = powersOfTwo(raw, null, format);
    return 4L + varintSize(d) + varintSize(nnz) + (indexPlan(v.indicesUnsafe(), d) >>> 8)
        + valueBytes(nnz, format, pow2);
  }

  /**
   * The smallest index layout, its size in bytes and the Rice parameter, as {@code bytes << 8 | parameter << 2 |
   * layout} (ties prefer delta, then bitmap, then Rice; dense only when every coordinate is stored).
   */
  private static long indexPlan(int[] idx, int d) {
    if (idx.length == d) {
      return LAYOUT_DENSE; // delta, bitmap and Rice all take at least a byte
    }
    long deltaBytes = 0;
    int previous = -1;
    for (int index : idx) {
      deltaBytes += varintSize(index - previous);
      previous = index;
    }
    long bitmapBytes = (d + 7L) >>> 3;
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

  /** The plan of {@link #indexPlan} for one layout, whatever its size. */
  private static long planIn(int[] idx, int d, int layout) {
    switch (layout) {
      case LAYOUT_DELTA -> {
        long bytes = 0;
        int previous = -1;
        for (int index : idx) {
          bytes += varintSize(index - previous);
          previous = index;
        }
        return bytes << 8 | LAYOUT_DELTA;
      }
      case LAYOUT_BITMAP -> {
        return ((d + 7L) >>> 3) << 8 | LAYOUT_BITMAP;
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

  /**
   * Whether the 9-bit codes apply: every value is ±0 or a normal ±2^e, and for a narrower format also exact in it
   * (its rounding leaves it unchanged), so the decoded values are those the format would give.
   *
   * @param rounded {@code format.round(raw)}, or null to have it computed when needed
   */
  private static boolean powersOfTwo(float[] raw, float[] rounded, ValueFormat format) {
    int bad = 0;
    for (float v : raw) {
      int bits = Float.floatToRawIntBits(v);
      int exponent = (bits >>> 23) & 0xff;
      // ±0, or a zero mantissa with a normal exponent field; branch-free so the scan stays cheap
      int zero = (bits & 0x7fffffff) == 0 ? 1 : 0;
      int ok = (bits & 0x007fffff) == 0 && exponent >= 1 && exponent <= 254 ? 1 : 0;
      bad |= (zero | ok) ^ 1;
    }
    if (bad != 0) {
      return false;
    }
    if (format == ValueFormat.FP32) {
      return true;
    }
    float[] r = rounded != null ? rounded : format.round(raw);
    for (int i = 0; i < raw.length; i++) {
      if (Float.floatToRawIntBits(r[i]) != Float.floatToRawIntBits(raw[i])) {
        return false;
      }
    }
    return true;
  }

  private static long valueBytes(int nnz, ValueFormat format, boolean pow2) {
    if (pow2) {
      return (9L * nnz + 7) >>> 3;
    }
    switch (format) {
      case FP16:
      case BF16:
        return 2L * nnz;
      case INT8:
        return 4L + nnz;
      default:
        return 4L * nnz;
    }
  }

  /**
   * Decodes bytes written by {@link #encode}.
   *
   * @throws IllegalArgumentException naming the defect for truncated input, bad magic or version, unknown layout,
   *     an out-of-range dimension or nnz, out-of-range or non-increasing indices, a bitmap that disagrees with nnz,
   *     non-finite values, or trailing bytes
   */
  public static SparseVector decode(byte[] bytes) {
    Header h = header(bytes);
    int[] idx = new int[h.nnz()];
    float[] val = new float[h.nnz()];
    readEntries(bytes, h, idx, val, 0);
    return SparseVector.trusted(h.dimension(), idx, val);
  }

  /** The dimension a message states in its header (after the header's checks of {@link #decode}). */
  public static int dimensionOf(byte[] bytes) {
    return header(bytes).dimension();
  }

  /** What the header of a message says, after the checks {@link #decode} makes before reading any entry. */
  record Header(int dimension, int nnz, int layout, ValueFormat format, boolean pow2, int entriesStart) {}

  /** The header's checks of {@link #decode}, in its order, up to the first index. */
  static Header header(byte[] bytes) {
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
    int valueFlags = flags & ~3;
    if ((valueFlags & ~(FLAG_FP16 | FLAG_POW2 | FLAG_BF16 | FLAG_INT8)) != 0 || Integer.bitCount(valueFlags) > 1) {
      throw new IllegalArgumentException("unknown layout byte 0x" + Integer.toHexString(flags)
          + "; expected index layout 0-3 and at most one value flag: 0x4 FP16, 0x8 power of two, 0x10 BF16, "
          + "0x20 INT8");
    }
    boolean pow2 = valueFlags == FLAG_POW2;
    ValueFormat format = valueFlags == FLAG_FP16 ? ValueFormat.FP16 : valueFlags == FLAG_BF16 ? ValueFormat.BF16
        : valueFlags == FLAG_INT8 ? ValueFormat.INT8 : ValueFormat.FP32;
    long[] cursor = {4};
    int d = readVarint(bytes, cursor, "dimension");
    if (d < 1) {
      throw new IllegalArgumentException("dimension = " + d + " is out of range; expected dimension >= 1");
    }
    int nnz = readVarint(bytes, cursor, "nnz");
    if (nnz > d) {
      throw new IllegalArgumentException("nnz = " + nnz + " is out of range; expected nnz <= dimension " + d);
    }
    long valueBytes = valueBytes(nnz, format, pow2);
    int pos = (int) cursor[0];
    // Bound nnz by the remaining bytes before allocating, so a corrupt header cannot trigger a huge allocation.
    if (valueBytes > bytes.length - pos) {
      throw new IllegalArgumentException("truncated: " + nnz + " values need " + valueBytes
          + " bytes but only " + (bytes.length - pos) + " remain");
    }
    return new Header(d, nnz, layout, format, pow2, pos);
  }

  /**
   * The entries of {@link #decode} after {@link #header}: slots {@code [at, at + h.nnz())} of idx and val (which may
   * be longer) receive the indices and values, with every check of {@link #decode}.
   */
  static void readEntries(byte[] bytes, Header h, int[] idx, float[] val, int at) {
    int d = h.dimension();
    int nnz = h.nnz();
    int layout = h.layout();
    ValueFormat format = h.format();
    boolean pow2 = h.pow2();
    long valueBytes = valueBytes(nnz, format, pow2);
    int pos = h.entriesStart();
    long[] cursor = {pos};
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
        idx[at + i] = (int) index;
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
          idx[at + n++] = index;
          bits &= bits - 1;
        }
      }
      if (n != nnz) {
        throw new IllegalArgumentException("bitmap has " + n + " bits set; expected nnz = " + nnz);
      }
      pos += bitmapBytes;
    } else if (layout == LAYOUT_RICE) {
      pos = RiceGaps.read(bytes, pos, d, idx, at, nnz);
    } else {
      if (nnz != d) {
        throw new IllegalArgumentException("dense layout with nnz = " + nnz + "; expected nnz == dimension " + d);
      }
      for (int i = 0; i < nnz; i++) {
        idx[at + i] = i;
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
    if (pow2) {
      decodePowersOfTwo(bytes, pos, idx, val, at, nnz);
      return;
    }
    float scale = 0;
    if (format == ValueFormat.INT8) {
      scale = Float.intBitsToFloat(readInt(bytes, pos));
      pos += 4;
      if (!(scale >= 0 && scale <= Float.MAX_VALUE)) {
        throw new IllegalArgumentException("INT8 scale is " + scale + "; expected a finite scale >= 0");
      }
    }
    for (int i = 0; i < nnz; i++) {
      float v;
      if (format == ValueFormat.FP16) {
        v = Half.toFloat((short) ((bytes[pos] & 0xff) | (bytes[pos + 1] << 8)));
        pos += 2;
      } else if (format == ValueFormat.BF16) {
        v = Float.intBitsToFloat((bytes[pos] & 0xff) << 16 | (bytes[pos + 1] & 0xff) << 24);
        pos += 2;
      } else if (format == ValueFormat.INT8) {
        int q = bytes[pos++];
        if (q == -128) {
          throw new IllegalArgumentException("value[" + i + "] at index " + idx[at + i] + " has INT8 code -128; "
              + "expected codes in [-127, 127]");
        }
        v = q * scale;
      } else {
        v = Float.intBitsToFloat(readInt(bytes, pos));
        pos += 4;
      }
      if (!Float.isFinite(v)) {
        throw new IllegalArgumentException("value[" + i + "] at index " + idx[at + i] + " is " + v
            + "; expected finite values");
      }
      val[at + i] = v;
    }
  }

  private static int readInt(byte[] bytes, int pos) {
    return (int) LITTLE_ENDIAN_INT.get(bytes, pos);
  }

  private static void decodePowersOfTwo(byte[] bytes, int pos, int[] idx, float[] val, int at, int nnz) {
    long acc = 0;
    int bits = 0;
    for (int i = 0; i < nnz; i++) {
      while (bits < 9) {
        acc |= (long) (bytes[pos++] & 0xff) << bits;
        bits += 8;
      }
      int code = (int) acc & 0x1ff;
      acc >>>= 9;
      bits -= 9;
      if ((code & 0xff) == 0xff) {
        throw new IllegalArgumentException("value[" + i + "] at index " + idx[at + i] + " has power-of-two code 0x"
            + Integer.toHexString(code) + " (exponent field 255, not finite); expected finite values");
      }
      val[at + i] = Float.intBitsToFloat(code << 23);
    }
    if (acc != 0) {
      throw new IllegalArgumentException("power-of-two padding bits after the last value are not zero; expected "
          + "zero padding");
    }
  }

  /** The layout {@link #encode} chose for these bytes, for diagnostics: "delta", "bitmap", "dense" or "rice". */
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
        return "rice";
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
