package org.bitopk.job.checkpoint;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.engine.RunCounters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CheckpointStoreTest {

  @TempDir
  java.nio.file.Path tmp;
  FileSystem fs;
  Path run;

  @BeforeEach
  void setUp() throws IOException {
    run = new Path(tmp.toUri());
    fs = run.getFileSystem(new Configuration());
  }

  static Checkpoint sample(int iteration, int d, int workers, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[][] residuals = new float[workers][];
    float[][] velocities = new float[workers][];
    for (int i = 0; i < workers; i++) {
      residuals[i] = i == 1 ? null : floats(random, d);
      velocities[i] = i % 2 == 0 ? floats(random, d) : null;
    }
    float[] master = floats(random, d);
    master[0] = -0.0f;                                     // signed zero survives
    master[d - 1] = Float.intBitsToFloat(0x7fc00123);      // a NaN payload survives bit for bit
    return Checkpoint.builder().runId("run").configDigest("digest").seed(seed).iteration(iteration)
        .master(master).serverResidual(floats(random, d)).workerResiduals(residuals).workerVelocities(velocities)
        .workerCompressorStates(compressorStates(random, workers))
        .serverCompressorState(new byte[] {(byte) seed, 7, -1})
        .counters(new RunCounters(1234L * iteration, 99L * iteration, 99L * 4 * iteration, 1, 2, 3))
        .epochProgress(0.1 * iteration, iteration % 7).build();
  }

  /** Mixed: empty (stateless), a few bytes, missing (not collected). */
  static byte[][] compressorStates(SplittableRandom random, int workers) {
    byte[][] states = new byte[workers][];
    for (int i = 0; i < workers; i++) {
      if (i % 3 == 0) {
        states[i] = new byte[0];
      } else if (i % 3 == 1) {
        states[i] = new byte[8];
        for (int j = 0; j < 8; j++) {
          states[i][j] = (byte) random.nextInt(256);
        }
      }
    }
    return states;
  }

  static float[] floats(SplittableRandom random, int d) {
    float[] x = new float[d];
    for (int j = 0; j < d; j++) {
      x[j] = (float) (random.nextGaussian() * 1e-3);
    }
    return x;
  }

  @Test
  void roundTripIsBitExact() throws IOException {
    CheckpointStore store = CheckpointStore.in(fs, run, 2);
    Checkpoint saved = sample(42, 1000, 3, 7);
    Path path = store.write(saved);
    Checkpoint read = store.read(path);
    assertEquals(saved, read);
    for (float[][] pair : List.of(new float[][] {saved.master(), read.master()},
        new float[][] {saved.serverResidual(), read.serverResidual()})) {
      for (int j = 0; j < pair[0].length; j++) {
        assertEquals(Float.floatToRawIntBits(pair[0][j]), Float.floatToRawIntBits(pair[1][j]), "entry " + j);
      }
    }
    assertNull(read.workerResidual(1));
    assertNull(read.workerVelocity(1));
    assertArrayEquals(saved.workerResidual(2), read.workerResidual(2));
    assertEquals(0.1 * 42, read.epochLossSum());
    assertEquals(42 % 7, read.epochRounds());
  }

  @Test
  void latestIsTheNewestAndOnlyTheNewestKeepAreKept() throws IOException {
    CheckpointStore store = CheckpointStore.in(fs, run, 2);
    assertEquals(Optional.empty(), store.latest());
    for (int t : new int[] {5, 10, 15, 20}) {
      store.write(sample(t, 50, 2, t));
    }
    assertEquals(20, store.latest().orElseThrow().iteration());
    assertEquals(List.of(20L, 15L), store.listNewestFirst().stream().map(CheckpointStore::iterationOf).toList());
  }

  /** A driver killed mid-write leaves a temporary file, or (object stores) a truncated final one. */
  @ParameterizedTest
  @ValueSource(strings = {"temporary", "truncated", "corrupted", "empty", "padded"})
  void damagedOrPartialCheckpointsAreNeverPickedUp(String damage) throws IOException {
    CheckpointStore store = CheckpointStore.in(fs, run, 3);
    Checkpoint good = sample(10, 200, 2, 1);
    store.write(good);
    byte[] newer = CheckpointCodec.encode(sample(20, 200, 2, 2));
    Path target = store.pathOf(20);
    byte[] planted = switch (damage) {
      case "temporary" -> newer;
      case "truncated" -> Arrays.copyOf(newer, newer.length / 2);
      case "corrupted" -> flipOneBit(newer, newer.length / 3);
      case "empty" -> new byte[0];
      case "padded" -> Arrays.copyOf(newer, newer.length + 1);
      default -> throw new AssertionError(damage);
    };
    Path file = damage.equals("temporary") ? new Path(store.directory(), "_tmp-" + target.getName() + "-abc") : target;
    try (OutputStream out = fs.create(file, true)) {
      out.write(planted);
    }
    Checkpoint resumed = store.latest().orElseThrow();
    assertEquals(good, resumed, "resume must fall back to the last intact checkpoint");
    if (!damage.equals("temporary")) {
      assertThrows(IllegalArgumentException.class, () -> store.read(target));
    }
  }

  @Test
  void writeLeavesNoTemporaryFiles() throws IOException {
    CheckpointStore store = CheckpointStore.in(fs, run, 2);
    store.write(sample(3, 10, 1, 3));
    try (var files = Files.list(tmp.resolve(CheckpointStore.DIRECTORY))) {
      List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".crc")).toList();
      assertEquals(List.of("checkpoint-0000000003.bin"), names);
    }
  }

  @Test
  void everyDamagedByteIsDetected() {
    byte[] bytes = CheckpointCodec.encode(sample(1, 8, 2, 5));
    for (int at = 0; at < bytes.length; at++) {
      int position = at;
      assertThrows(IllegalArgumentException.class, () -> CheckpointCodec.decode(flipOneBit(bytes, position)),
          "flip at byte " + at);
    }
    for (int length = 0; length < bytes.length; length++) {
      int cut = length;
      assertThrows(IllegalArgumentException.class, () -> CheckpointCodec.decode(Arrays.copyOf(bytes, cut)),
          "truncated to " + length);
    }
  }

  @Test
  void builderRejectsInconsistentShapes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Checkpoint.builder()
        .runId("r").iteration(1).master(new float[3]).serverResidual(new float[4])
        .workerResiduals(new float[][] {new float[3]}).build());
    assertTrue(e.getMessage().contains("server residual has 4 entries, model 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Checkpoint.builder()
        .runId("r").iteration(1).master(new float[3]).serverResidual(new float[3])
        .workerResiduals(new float[][] {new float[3], new float[2]}).build());
    assertTrue(e.getMessage().contains("worker 1 residual has 2 entries"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Checkpoint.builder().iteration(-1));
    assertThrows(IllegalArgumentException.class, () -> CheckpointStore.in(fs, run, 0));
    assertFalse(sample(1, 4, 1, 1).equals(sample(2, 4, 1, 1)));
  }

  static byte[] flipOneBit(byte[] bytes, int at) {
    byte[] copy = bytes.clone();
    copy[at] ^= 0x10;
    return copy;
  }

  @Test
  void onlyIntactCheckpointsCountTowardTheNewestTwo() throws IOException {
    CheckpointStore store = CheckpointStore.in(fs, run, 2);
    store.write(sample(10, 50, 2, 1));
    store.write(sample(20, 50, 2, 2));
    // junk under the exact name of a newer checkpoint, and an intact checkpoint under another iteration's name
    java.nio.file.Path dir = tmp.resolve(CheckpointStore.DIRECTORY);
    Files.write(dir.resolve("checkpoint-0000000200.bin"), new byte[] {1, 2, 3});
    Files.copy(dir.resolve("checkpoint-0000000010.bin"), dir.resolve("checkpoint-0000000300.bin"));
    Files.write(dir.resolve("checkpoint-25.bin"), new byte[] {4});      // not the exact pattern: not ours
    store.write(sample(30, 50, 2, 3));

    List<String> names = new java.util.ArrayList<>();
    for (Path p : store.listNewestFirst()) {
      names.add(p.getName());
    }
    // the newest two intact ones (30, 20) stay; 10 is pruned; the damaged and misnamed files never counted
    assertEquals(List.of("checkpoint-0000000300.bin", "checkpoint-0000000200.bin", "checkpoint-0000000030.bin",
        "checkpoint-0000000020.bin"), names);
    assertEquals(30, store.latest().orElseThrow().iteration());
    assertEquals(20, store.read(new Path(store.directory(), "checkpoint-0000000020.bin")).iteration());
    IllegalArgumentException misnamed = assertThrows(IllegalArgumentException.class,
        () -> store.read(new Path(store.directory(), "checkpoint-0000000300.bin")));
    assertTrue(misnamed.getMessage().contains("holds the checkpoint of iteration 10"), misnamed.getMessage());
    assertTrue(Files.exists(dir.resolve("checkpoint-25.bin")));
  }

  @Test
  void temporaryFilesOfFailedWritesAreRemoved() throws IOException {
    CheckpointStore store = CheckpointStore.in(fs, run, 2);
    store.write(sample(10, 50, 2, 1));
    java.nio.file.Path dir = tmp.resolve(CheckpointStore.DIRECTORY);
    Files.write(dir.resolve("_tmp-checkpoint-0000000020.bin-0badf00d"), new byte[] {1});
    assertEquals(1, store.removeTemporaries());
    assertEquals(List.of("checkpoint-0000000010.bin"), Files.list(dir).map(p -> p.getFileName().toString())
        .filter(n -> !n.endsWith(".crc")).sorted().toList());
  }
}
