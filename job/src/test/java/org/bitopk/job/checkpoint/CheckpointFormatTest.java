package org.bitopk.job.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.bitopk.job.engine.RunCounters;
import org.junit.jupiter.api.Test;

/** Format 3 carries EF21's server gradient estimate; format 2 files (without it) are still read. */
class CheckpointFormatTest {

  private static Checkpoint checkpoint(float[] estimate) {
    return Checkpoint.builder().runId("run").configDigest("lr=0.1\n").seed(7).iteration(12)
        .counters(new RunCounters(1, 2, 3, 0, 0, 0)).epochProgress(1.5, 2).master(new float[] {1f, -2f, 3f})
        .serverResidual(new float[] {0f, 0.5f, 0f}).serverEstimate(estimate)
        .workerResiduals(new float[][] {{0.25f, 0f, 1f}, null}).build();
  }

  @Test
  void theServerEstimateRoundTripsBitForBit() {
    float[] g = {Float.MIN_VALUE, -0f, 1e30f};
    Checkpoint decoded = CheckpointCodec.decode(CheckpointCodec.encode(checkpoint(g)));
    assertArrayEquals(g, decoded.serverEstimate());
    assertEquals(checkpoint(g), decoded);
    assertArrayEquals(g, decoded.toResumePoint().serverEstimate());
  }

  /** A version-2 file is a version-3 file without the estimate's presence byte; it decodes with no estimate. */
  @Test
  void versionTwoFilesAreStillRead() {
    byte[] without = CheckpointCodec.encode(checkpoint(null));
    byte[] with = CheckpointCodec.encode(checkpoint(new float[] {1f, 2f, 3f}));
    int at = 0;
    while (without[at] == with[at]) {
      at++;
    }
    int payload = without.length - 8;
    byte[] v2 = new byte[payload - 1 + 8];
    System.arraycopy(without, 0, v2, 0, at);
    System.arraycopy(without, at + 1, v2, at, payload - at - 1);
    ByteBuffer.wrap(v2).putInt(CheckpointCodec.MAGIC.length, 2);
    CRC32 crc = new CRC32();
    crc.update(v2, 0, payload - 1);
    ByteBuffer.wrap(v2).putLong(payload - 1, crc.getValue());
    Checkpoint decoded = CheckpointCodec.decode(v2);
    assertNull(decoded.serverEstimate());
    assertEquals(checkpoint(null), decoded);
    assertEquals(3, ByteBuffer.wrap(without).getInt(CheckpointCodec.MAGIC.length), "new files are version 3");
    assertEquals(Arrays.toString(new float[] {0.25f, 0f, 1f}), Arrays.toString(decoded.workerResidual(0)));
  }
}
