package org.bitopk.job.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The binary file of one captured vector, little-endian throughout: a 48-byte header, then d float32 values.
 *
 * <pre>
 * offset size  field
 *      0    4  magic "BTKV" (ASCII)
 *      4    4  int32   format version, 1
 *      8    4  int32   round, 1-based
 *     12    4  int32   worker, 0-based
 *     16    4  int32   workers P of the run
 *     20    4  int32   d, the number of values
 *     24    4  int32   value type: 1 = IEEE-754 float32
 *     28    4  float32 the round's learning rate
 *     32    8  float64 the run's uplink density
 *     40    4  int32   the run's uplink target k
 *     44    4  int32   CRC32C of the 4·d value bytes
 *     48  4·d float32 c_i[0 .. d-1]
 * </pre>
 *
 * <p>The length is exactly 48 + 4·d bytes: a truncated or padded file is refused before its values are read, a
 * foreign file by its magic, a damaged one by the checksum. numpy reads the values with
 * {@code np.fromfile(f, dtype='<f4', offset=48)}.
 */
public final class CaptureFormat {
  /** The first four bytes of every capture file. */
  public static final String MAGIC = "BTKV";
  public static final int VERSION = 1;
  /** Value type code of float32. */
  public static final int FLOAT32 = 1;
  public static final int HEADER_BYTES = 48;

  private static final byte[] MAGIC_BYTES = MAGIC.getBytes(StandardCharsets.US_ASCII);

  private CaptureFormat() {}

  /** The file's bytes. */
  public static byte[] encode(CapturedVector v) {
    float[] values = v.valuesUnsafe();
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + Float.BYTES * values.length).order(ByteOrder.LITTLE_ENDIAN);
    b.position(HEADER_BYTES);
    b.asFloatBuffer().put(values);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), HEADER_BYTES, Float.BYTES * values.length);
    b.position(0);
    b.put(MAGIC_BYTES).putInt(VERSION).putInt(v.round()).putInt(v.worker()).putInt(v.workers())
        .putInt(values.length).putInt(FLOAT32).putFloat(v.learningRate()).putDouble(v.density())
        .putInt(v.targetK()).putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * Reads a file's bytes.
   *
   * @param name the file, for messages
   * @throws IllegalArgumentException one line naming the file and what is wrong: not a capture file, another
   *     version or value type, truncated or too long, a checksum mismatch, an invalid header field
   */
  public static CapturedVector decode(String name, byte[] bytes) {
    if (bytes.length < MAGIC_BYTES.length || !java.util.Arrays.equals(bytes, 0, MAGIC_BYTES.length, MAGIC_BYTES,
        0, MAGIC_BYTES.length)) {
      throw new IllegalArgumentException(name + ": not a captured vector (expected a file starting with \""
          + MAGIC + "\", written by train --capture-vectors)");
    }
    if (bytes.length < HEADER_BYTES) {
      throw new IllegalArgumentException(name + ": truncated: " + bytes.length + " bytes, shorter than the "
          + HEADER_BYTES + "-byte header");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    b.position(MAGIC_BYTES.length);
    int version = b.getInt();
    if (version != VERSION) {
      throw new IllegalArgumentException(name + ": format version " + version + "; this build reads version "
          + VERSION);
    }
    int round = b.getInt();
    int worker = b.getInt();
    int workers = b.getInt();
    int d = b.getInt();
    int type = b.getInt();
    float lr = b.getFloat();
    double density = b.getDouble();
    int targetK = b.getInt();
    int checksum = b.getInt();
    if (type != FLOAT32) {
      throw new IllegalArgumentException(name + ": value type " + type + "; expected " + FLOAT32 + " (float32)");
    }
    long expected = HEADER_BYTES + (long) Float.BYTES * Math.max(d, 0);
    if (d < 1 || bytes.length != expected) {
      throw new IllegalArgumentException(name + ": " + (d < 1 ? "d = " + d + " in the header (expected >= 1)"
          : (bytes.length < expected ? "truncated: " : "too long: ") + bytes.length + " bytes, expected "
          + expected + " for d = " + d));
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, HEADER_BYTES, Float.BYTES * d);
    if ((int) crc.getValue() != checksum) {
      throw new IllegalArgumentException(name + ": damaged: the values' CRC32C is "
          + Integer.toHexString((int) crc.getValue()) + ", the header says " + Integer.toHexString(checksum));
    }
    float[] values = new float[d];
    b.position(HEADER_BYTES);
    b.asFloatBuffer().get(values);
    try {
      return CapturedVector.trusted(round, worker, workers, lr, density, targetK, values);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }
}
