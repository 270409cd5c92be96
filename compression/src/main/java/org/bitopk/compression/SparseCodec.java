package org.bitopk.compression;

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
 *
 * <p>The index section is {@link IndexLayouts}', the value section {@link ValueSections}'; this class writes and
 * checks the header and puts the sections together.
 */
public final class SparseCodec {

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
    long indexPlan = layoutWanted < 0 ? IndexLayouts.smallest(idx, d) : IndexLayouts.in(idx, d, layoutWanted);
    int layout = (int) (indexPlan & 3);
    boolean pow2 = ValueSections.powersOfTwo(raw, val, format);
    long total = 4L + Varints.size(d) + Varints.size(nnz) + (indexPlan >>> 8)
        + ValueSections.bytes(nnz, format, pow2);
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("encoded size " + total + " bytes exceeds the 2 GiB array limit");
    }
    byte[] out = new byte[(int) total];
    out[0] = (byte) MAGIC_0;
    out[1] = (byte) MAGIC_1;
    out[2] = (byte) VERSION;
    out[3] = (byte) (layout | (pow2 ? FLAG_POW2 : ValueSections.flag(format)));
    int pos = Varints.write(out, 4, d);
    pos = Varints.write(out, pos, nnz);
    pos = IndexLayouts.write(out, pos, idx, d, indexPlan);
    ValueSections.write(out, pos, val, format, pow2);
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
    boolean pow2 = ValueSections.powersOfTwo(v.valuesUnsafe(), null, format);
    return 4L + Varints.size(d) + Varints.size(nnz) + (IndexLayouts.smallest(v.indicesUnsafe(), d) >>> 8)
        + ValueSections.bytes(nnz, format, pow2);
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
    int d = Varints.read(bytes, cursor, "dimension");
    if (d < 1) {
      throw new IllegalArgumentException("dimension = " + d + " is out of range; expected dimension >= 1");
    }
    int nnz = Varints.read(bytes, cursor, "nnz");
    if (nnz > d) {
      throw new IllegalArgumentException("nnz = " + nnz + " is out of range; expected nnz <= dimension " + d);
    }
    long valueBytes = ValueSections.bytes(nnz, format, pow2);
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
    int nnz = h.nnz();
    long valueBytes = ValueSections.bytes(nnz, h.format(), h.pow2());
    int pos = IndexLayouts.read(bytes, h.entriesStart(), h.layout(), h.dimension(), nnz, idx, at);
    long expectedEnd = pos + valueBytes;
    if (expectedEnd > bytes.length) {
      throw new IllegalArgumentException("truncated: values need " + valueBytes + " bytes but only "
          + (bytes.length - pos) + " remain");
    }
    if (expectedEnd < bytes.length) {
      throw new IllegalArgumentException((bytes.length - expectedEnd) + " trailing bytes after the last value; "
          + "expected exactly " + expectedEnd + " bytes");
    }
    ValueSections.read(bytes, pos, h.format(), h.pow2(), idx, val, at, nnz);
  }

  /** The layout {@link #encode} chose for these bytes, for diagnostics: "delta", "bitmap", "dense" or "rice". */
  public static String layoutName(byte[] encoded) {
    if (encoded == null || encoded.length < 4) {
      throw new IllegalArgumentException("truncated: expected at least a 4-byte header");
    }
    return IndexLayouts.name(encoded[3] & 3);
  }
}
