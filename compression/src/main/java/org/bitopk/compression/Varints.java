package org.bitopk.compression;

/** Unsigned LEB128 varints (7 payload bits a byte) of the {@link SparseCodec} header and delta indices. */
final class Varints {

  private Varints() {}

  static int size(int value) {
    int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
    return (bits + 6) / 7;
  }

  static int write(byte[] out, int pos, int value) {
    while ((value & ~0x7f) != 0) {
      out[pos++] = (byte) ((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out[pos++] = (byte) value;
    return pos;
  }

  /** Reads an unsigned varint that must fit a non-negative int; rejects truncation and overlong encodings. */
  static int read(byte[] in, long[] cursor, String field) {
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
