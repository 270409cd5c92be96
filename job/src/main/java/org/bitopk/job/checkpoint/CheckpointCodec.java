package org.bitopk.job.checkpoint;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import org.bitopk.job.engine.RunCounters;
import org.bitopk.job.output.RunContents;

/**
 * The checkpoint file format: magic, version, fields (floats as raw IEEE bits, so a restored model is the
 * saved one bit for bit), then a CRC-32 of everything before it. A truncated, padded or corrupted file fails
 * {@link #decode} instead of resuming from damaged state.
 */
final class CheckpointCodec {
  /** Also how a run directory's checks tell a checkpoint of bitopk from a foreign file of the same name. */
  static final byte[] MAGIC = RunContents.checkpointMagic();
  /** 3 adds EF21's server gradient estimate (optional floats after the server compressor state); 2 is still read. */
  static final int VERSION = 3;

  private CheckpointCodec() {
  }

  static byte[] encode(Checkpoint c) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(estimate(c));
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.write(MAGIC);
      out.writeInt(VERSION);
      out.writeUTF(c.runId());
      out.writeUTF(c.configDigest());
      out.writeLong(c.seed());
      out.writeInt(c.iteration());
      RunCounters counters = c.counters();
      out.writeLong(counters.upBytes());
      out.writeLong(counters.downBytes());
      out.writeLong(counters.downDeliveredBytes());
      out.writeLong(counters.lostResiduals());
      out.writeLong(counters.replicaResyncs());
      out.writeLong(counters.rolledBackSteps());
      out.writeDouble(c.epochLossSum());
      out.writeInt(c.epochRounds());
      out.writeInt(c.dimension());
      out.writeInt(c.workers());
      writeFloats(out, c.master());
      writeFloats(out, c.serverResidual());
      writeBytes(out, c.serverCompressorState());
      writeOptionalFloats(out, c.serverEstimate());
      for (int i = 0; i < c.workers(); i++) {
        writeOptionalFloats(out, c.workerResidual(i));
        writeOptionalFloats(out, c.workerVelocity(i));
        byte[] state = c.workerCompressorState(i);
        out.writeBoolean(state != null);
        if (state != null) {
          writeBytes(out, state);
        }
      }
      out.flush();
      CRC32 crc = new CRC32();
      crc.update(bytes.toByteArray());
      out.writeLong(crc.getValue());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode " + c, e);
    }
    return bytes.toByteArray();
  }

  /** @throws IllegalArgumentException if the bytes are not one complete, intact checkpoint */
  static Checkpoint decode(byte[] bytes) {
    if (bytes.length < MAGIC.length + 4 + 8) {
      throw new IllegalArgumentException("checkpoint too short (" + bytes.length + " bytes)");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (bytes[i] != MAGIC[i]) {
        throw new IllegalArgumentException("not a bitopk checkpoint (bad magic)");
      }
    }
    int payload = bytes.length - 8;
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, payload);
    long stored = readLong(bytes, payload);
    if (crc.getValue() != stored) {
      throw new IllegalArgumentException("checkpoint CRC mismatch (truncated or corrupted: " + bytes.length + " bytes)");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, payload))) {
      in.skipNBytes(MAGIC.length);
      int version = in.readInt();
      if (version != VERSION && version != 2) {
        throw new IllegalArgumentException("checkpoint format version " + version + ", this build reads 2 and "
            + VERSION);
      }
      Checkpoint.Builder b = Checkpoint.builder().runId(in.readUTF()).configDigest(in.readUTF()).seed(in.readLong())
          .iteration(in.readInt());
      b.counters(new RunCounters(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(),
          in.readLong()));
      b.epochProgress(in.readDouble(), in.readInt());
      int d = in.readInt();
      int workers = in.readInt();
      if (d < 0 || workers < 1 || (long) d * 4 > payload) {
        throw new IllegalArgumentException("checkpoint header is inconsistent: dimension " + d + ", workers " + workers);
      }
      b.master(readFloats(in, d)).serverResidual(readFloats(in, d)).serverCompressorState(readBytes(in, payload));
      if (version >= 3) {
        b.serverEstimate(readOptionalFloats(in, d));
      }
      float[][] residuals = new float[workers][];
      float[][] velocities = new float[workers][];
      byte[][] states = new byte[workers][];
      for (int i = 0; i < workers; i++) {
        residuals[i] = readOptionalFloats(in, d);
        velocities[i] = readOptionalFloats(in, d);
        states[i] = in.readBoolean() ? readBytes(in, payload) : null;
      }
      b.workerCompressorStates(states);
      if (in.available() != 0) {
        throw new IllegalArgumentException("checkpoint has " + in.available() + " unexpected trailing bytes");
      }
      return b.workerResiduals(residuals).workerVelocities(velocities).build();
    } catch (EOFException e) {
      throw new IllegalArgumentException("checkpoint ends early", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int estimate(Checkpoint c) {
    long floats = (long) c.dimension() * (2 + 2L * c.workers());
    return (int) Math.min(Integer.MAX_VALUE - 64, 256 + 4 * floats);
  }

  private static void writeFloats(DataOutputStream out, float[] values) throws IOException {
    for (float v : values) {
      out.writeInt(Float.floatToRawIntBits(v));
    }
  }

  private static void writeOptionalFloats(DataOutputStream out, float[] values) throws IOException {
    out.writeBoolean(values != null);
    if (values != null) {
      writeFloats(out, values);
    }
  }

  private static float[] readFloats(DataInputStream in, int d) throws IOException {
    float[] values = new float[d];
    for (int j = 0; j < d; j++) {
      values[j] = Float.intBitsToFloat(in.readInt());
    }
    return values;
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputStream in, int payload) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > payload) {
      throw new IllegalArgumentException("checkpoint announces a compressor state of " + n + " bytes");
    }
    byte[] bytes = in.readNBytes(n);
    if (bytes.length != n) {
      throw new EOFException();
    }
    return bytes;
  }

  private static float[] readOptionalFloats(DataInputStream in, int d) throws IOException {
    return in.readBoolean() ? readFloats(in, d) : null;
  }

  private static long readLong(byte[] bytes, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (bytes[at + i] & 0xffL);
    }
    return v;
  }
}
