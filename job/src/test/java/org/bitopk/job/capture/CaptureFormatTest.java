package org.bitopk.job.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The capture file format: the documented layout, a lossless round trip, and one line for every bad file. */
public class CaptureFormatTest {
  @TempDir
  java.nio.file.Path tmp;

  public static CapturedVector vector(int d, long seed) {
    Random random = new Random(seed);
    float[] values = new float[d];
    for (int j = 0; j < d; j++) {
      values[j] = (float) random.nextGaussian() * 1e-3f;
    }
    values[0] = -0f;   // signed zero and subnormals survive too
    if (d > 1) {
      values[1] = Float.MIN_VALUE;
    }
    return CapturedVector.of(100, 7, 20, 0.08f, 0.001, Math.max(1, d / 3), values);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 7, 1000, 242_762})
  void roundTripKeepsEveryBitAndTheLayoutIsTheDocumentedOne(int d) {
    CapturedVector v = vector(d, d);
    byte[] bytes = CaptureFormat.encode(v);
    assertEquals(48 + 4L * d, bytes.length);
    // The layout, read independently of the decoder: little-endian header fields at their documented offsets.
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals("BTKV", new String(bytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII));
    assertEquals(1, b.getInt(4));
    assertEquals(100, b.getInt(8));
    assertEquals(7, b.getInt(12));
    assertEquals(20, b.getInt(16));
    assertEquals(d, b.getInt(20));
    assertEquals(1, b.getInt(24));
    assertEquals(0.08f, b.getFloat(28));
    assertEquals(0.001, b.getDouble(32));
    assertEquals(Math.max(1, d / 3), b.getInt(40));
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, 48, 4 * d);
    assertEquals((int) crc.getValue(), b.getInt(44));
    float[] expected = v.values();
    for (int j = 0; j < d; j++) {
      assertEquals(Float.floatToRawIntBits(expected[j]), Float.floatToRawIntBits(b.getFloat(48 + 4 * j)), "value " + j);
    }

    CapturedVector back = CaptureFormat.decode("f", bytes);
    assertEquals(v.round(), back.round());
    assertEquals(v.worker(), back.worker());
    assertEquals(v.workers(), back.workers());
    assertEquals(v.learningRate(), back.learningRate());
    assertEquals(v.density(), back.density());
    assertEquals(v.targetK(), back.targetK());
    assertArrayEquals(v.values(), back.values());
    assertEquals(Arrays.hashCode(floatBits(v.values())), Arrays.hashCode(floatBits(back.values())));
  }

  private static int[] floatBits(float[] values) {
    int[] bits = new int[values.length];
    for (int j = 0; j < values.length; j++) {
      bits[j] = Float.floatToRawIntBits(values[j]);
    }
    return bits;
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3, 20, 47, 48, 51, 4047})
  void aTruncatedFileIsRefusedInOneLineNamingIt(int length) {
    byte[] whole = CaptureFormat.encode(vector(1000, 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CaptureFormat.decode("worker-0007.bin", Arrays.copyOf(whole, length)));
    assertTrue(e.getMessage().startsWith("worker-0007.bin: "), e.getMessage());
    assertTrue(e.getMessage().contains(length < 4 ? "not a captured vector" : "truncated"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  void foreignDamagedAndOtherVersionFilesAreRefused() {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13};
    assertTrue(message(png).contains("not a captured vector"), message(png));

    byte[] longer = Arrays.copyOf(CaptureFormat.encode(vector(10, 2)), 48 + 44);
    assertTrue(message(longer).contains("too long: 92 bytes, expected 88"), message(longer));

    byte[] damaged = CaptureFormat.encode(vector(10, 3));
    damaged[60] ^= 1;
    assertTrue(message(damaged).contains("damaged"), message(damaged));

    byte[] version = CaptureFormat.encode(vector(10, 4));
    version[4] = 2;
    assertTrue(message(version).contains("format version 2"), message(version));

    byte[] type = CaptureFormat.encode(vector(10, 5));
    type[24] = 2;
    assertTrue(message(type).contains("value type 2"), message(type));
  }

  private static String message(byte[] bytes) {
    return assertThrows(IllegalArgumentException.class, () -> CaptureFormat.decode("x.bin", bytes)).getMessage();
  }

  @Test
  void filesAreFoundByRoundAndAFileUnderAnotherNameIsRefused() throws IOException {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path run = new Path(tmp.toUri());
    var writer = CaptureFiles.writer(fs, run, 3, 0.01, 5);
    float[] c = vector(600, 9).values();
    writer.capture(12, 2, 0.1f, c);
    writer.capture(12, 0, 0.1f, c);
    writer.capture(3, 1, 0.1f, c);
    assertTrue(Files.exists(tmp.resolve("captures/round-000012/worker-0002.bin")));
    var listed = CaptureFiles.list(fs, run);
    assertEquals(java.util.List.of(3, 12), java.util.List.copyOf(listed.keySet()));
    assertEquals(java.util.List.of("worker-0000.bin", "worker-0002.bin"),
        listed.get(12).stream().map(Path::getName).toList());
    CapturedVector read = CaptureFiles.read(fs, listed.get(12).get(1));
    assertEquals(2, read.worker());
    assertArrayEquals(c, read.values());
    try (var names = Files.list(tmp.resolve("captures/round-000012"))) {
      assertTrue(names.noneMatch(p -> p.getFileName().toString().startsWith("_tmp-")), "temporary file left");
    }

    Files.copy(tmp.resolve("captures/round-000012/worker-0002.bin"), tmp.resolve("captures/round-000003/worker-0005.bin"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CaptureFiles.read(fs, new Path(tmp.resolve("captures/round-000003/worker-0005.bin").toUri())));
    assertTrue(e.getMessage().contains("holds round 12, worker 2"), e.getMessage());

    java.nio.file.Path empty = Files.createDirectories(tmp.resolve("empty"));
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> CaptureFiles.list(fs, new Path(empty.toUri())));
    assertTrue(none.getMessage().contains("no captured vectors"), none.getMessage());
  }

  @Test
  void invalidVectorsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> CapturedVector.of(0, 0, 1, 0.1f, 0.1, 1, new float[] {1}));
    assertThrows(IllegalArgumentException.class, () -> CapturedVector.of(1, 1, 1, 0.1f, 0.1, 1, new float[] {1}));
    assertThrows(IllegalArgumentException.class, () -> CapturedVector.of(1, 0, 1, 0.1f, 0.1, 2, new float[] {1}));
    assertThrows(IllegalArgumentException.class,
        () -> CapturedVector.of(1, 0, 1, 0.1f, 0.1, 1, new float[] {Float.NaN}));
  }
}
