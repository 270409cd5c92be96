package org.bitopk.compression;

import static org.bitopk.compression.SparseCodec.FLAG_BF16;
import static org.bitopk.compression.SparseCodec.FLAG_FP16;
import static org.bitopk.compression.SparseCodec.FLAG_INT8;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.jspecify.annotations.Nullable;

/**
 * The value section of {@link SparseCodec}: FP32, FP16, BF16, INT8 (a scale, then a byte a value) or the 9-bit
 * power-of-two codes, its size and flag, writing and reading each.
 */
final class ValueSections {

  private static final VarHandle LITTLE_ENDIAN_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private ValueSections() {}

  static int flag(ValueFormat format) {
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

  static long bytes(int nnz, ValueFormat format, boolean pow2) {
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
   * Whether the 9-bit codes apply: every value is ±0 or a normal ±2^e, and for a narrower format also exact in it
   * (its rounding leaves it unchanged), so the decoded values are those the format would give.
   *
   * @param rounded {@code format.round(raw)}, or null to have it computed when needed
   */
  static boolean powersOfTwo(float[] raw, float @Nullable [] rounded, ValueFormat format) {
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

  /** Writes the values {@code val} (already rounded to {@code format}) from {@code pos}. */
  static void write(byte[] out, int pos, float[] val, ValueFormat format, boolean pow2) {
    int nnz = val.length;
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

  /**
   * Reads {@code nnz} values at {@code pos} into {@code val[at ..]}, refusing a non-finite value, an INT8 code -128
   * or a bad scale, and non-zero power-of-two padding ({@code idx[at ..]} names the index in a message).
   */
  static void read(byte[] bytes, int pos, ValueFormat format, boolean pow2, int[] idx, float[] val, int at,
      int nnz) {
    if (pow2) {
      readPowersOfTwo(bytes, pos, idx, val, at, nnz);
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

  private static void readPowersOfTwo(byte[] bytes, int pos, int[] idx, float[] val, int at, int nnz) {
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
}
