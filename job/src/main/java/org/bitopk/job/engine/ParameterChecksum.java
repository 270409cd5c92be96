package org.bitopk.job.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** CRC32C over the IEEE-754 bits of a parameter vector: equal checksums for bit-identical replicas. */
public final class ParameterChecksum {
  private ParameterChecksum() {}

  public static long of(float[] parameters) {
    ByteBuffer bytes = ByteBuffer.allocate(parameters.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(parameters);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    // Mix in the length so vectors that differ only by trailing zeros cannot collide trivially.
    return (crc.getValue() << 20) ^ parameters.length;
  }
}
