package org.bitopk.job.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.bitopk.cli.Main;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.output.KilledWrites;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Crash and resume in one JVM (local[2]): a run stopped by an exception after a checkpoint, resumed with
 * {@code --resume}, ends bit for bit where the uninterrupted run ends, with the same metric lines. The
 * counterexample (K = 1 up and down) makes every residual matter: losing or misplacing one would show.
 * The real thing, a driver JVM killed on a standalone cluster, is in ClusterFaultsTest.
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResumeTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int ROUNDS = 60;

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  @TempDir
  Path tmp;

  record Outcome(int code, String out, String err) {}

  Outcome main(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, SPARK.context(), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  List<String> args(Path output, String... extra) {
    List<String> a = new ArrayList<>(List.of("--dataset", "counterexample", "--epochs",
        Integer.toString(ROUNDS), "--checkpoint-every", "10", "--momentum", "0.5", "--output", output.toString(),
        "--quiet"));
    a.addAll(List.of(extra));
    return a;
  }

  /** A run that dies (as a driver would) after {@code rounds} rounds; returns its directory. */
  Path crashedRun(String name, int rounds) throws IOException {
    return crashedRun(name, rounds, "topk", "topk");
  }

  Path crashedRun(String name, int rounds, String uplink, String downlink) throws IOException {
    Path out = tmp.resolve(name);
    TrainingConfig config = TrainingConfig.builder().master("local[2]").dataset("counterexample")
        .uplink(CompressorSpec.parse(uplink)).downlink(CompressorSpec.parse(downlink))
        .epochs(ROUNDS).checkpointEvery(10).momentum(0.5).output(out.toString()).quiet(true).build();
    RunListener crash = new RunListener() {
      @Override
      public void onIteration(IterationRecord record, DriverState state) {
        if (state.iteration() == rounds) {
          throw new IllegalStateException("simulated driver crash");
        }
      }
    };
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> TrainingRun.execute(SPARK.context(), config, false, List.of(crash)));
    assertEquals("simulated driver crash", e.getMessage());
    assertFalse(Files.exists(out.resolve("_SUCCESS")));
    return out;
  }

  /**
   * Also with compressors that carry state from round to round (Random-k's and DGC's call counters, adaptive
   * SIDCo's stage controller on the server): the checkpoint holds their state, so they resume exactly.
   */
  @ParameterizedTest(name = "uplink {0}, downlink {1}")
  @CsvSource({"topk, topk", "randomk, sidco-e", "dgc, sidco-gamma-gp"})
  void resumedRunEqualsTheUninterruptedRunBitForBit(String uplink, String downlink) throws IOException {
    Path reference = tmp.resolve("reference-" + uplink);
    Outcome ref = main(args(reference, "--uplink", uplink, "--downlink", downlink).toArray(String[]::new));
    assertEquals(0, ref.code(), ref.err());

    Path crashed = crashedRun("crashed-" + uplink, 35, uplink, downlink);
    CheckpointStore store = CheckpointStore.in(fs(), new org.apache.hadoop.fs.Path(crashed.toUri()), 2);
    assertEquals(30, store.latest().orElseThrow().iteration());
    // A newer checkpoint cut short by the crash, and a temporary file of one, must both be ignored.
    byte[] whole = Files.readAllBytes(crashed.resolve("checkpoints/checkpoint-0000000030.bin"));
    for (String name : List.of("checkpoint-0000000040.bin", "_tmp-checkpoint-0000000040.bin-1")) {
      KilledWrites.recordedAsWriting(crashed, "checkpoints/" + name);
    }
    Files.write(crashed.resolve("checkpoints/checkpoint-0000000040.bin"), java.util.Arrays.copyOf(whole, 100));
    Files.write(crashed.resolve("checkpoints/_tmp-checkpoint-0000000040.bin-1"), whole);

    Outcome resumed = main("--resume", crashed.toString(), "--quiet");
    assertEquals(0, resumed.code(), resumed.err());
    assertTrue(Files.exists(crashed.resolve("_SUCCESS")));

    float[] expected = parameters(reference);
    float[] actual = parameters(crashed);
    assertEquals(expected.length, actual.length);
    for (int j = 0; j < expected.length; j++) {
      assertEquals(Float.floatToRawIntBits(expected[j]), Float.floatToRawIntBits(actual[j]), "parameter " + j);
    }
    List<JsonNode> a = lines(reference.resolve("metrics/iterations.jsonl"));
    List<JsonNode> b = lines(crashed.resolve("metrics/iterations.jsonl"));
    assertEquals(ROUNDS, a.size());
    assertEquals(ROUNDS, b.size(), "the resumed run's metrics hold every round once");
    for (int t = 0; t < ROUNDS; t++) {
      assertEquals(withoutTimes(a.get(t)), withoutTimes(b.get(t)), "iteration " + t);
    }
    List<JsonNode> ea = lines(reference.resolve("metrics/epochs.jsonl"));
    List<JsonNode> eb = lines(crashed.resolve("metrics/epochs.jsonl"));
    assertEquals(ea.size(), eb.size());
    for (int i = 0; i < ea.size(); i++) {
      assertEquals(withoutTimes(ea.get(i)), withoutTimes(eb.get(i)), "epoch line " + i);
    }
    assertTrue(resumed.out().contains("lost residuals   0"), resumed.out());
  }

  /** Every checkpoint damaged (one truncated, one with a flipped byte): the line says so and what helps. */
  @Test
  void aRunWhoseCheckpointsAreAllDamagedIsRefusedSayingSo() throws IOException {
    Path crashed = crashedRun("all-damaged", 25);
    List<Path> checkpoints;
    try (java.util.stream.Stream<Path> listed = Files.list(crashed.resolve("checkpoints"))) {
      checkpoints = listed.filter(p -> p.getFileName().toString().startsWith("checkpoint-")).sorted().toList();
    }
    assertEquals(2, checkpoints.size(), checkpoints.toString());
    byte[] first = Files.readAllBytes(checkpoints.get(0));
    Files.write(checkpoints.get(0), java.util.Arrays.copyOf(first, first.length / 2));
    byte[] second = Files.readAllBytes(checkpoints.get(1));
    second[second.length / 2] ^= 0x10;
    Files.write(checkpoints.get(1), second);

    Outcome refused = main("--resume", crashed.toString(), "--quiet");
    assertEquals(2, refused.code(), refused.err());
    assertEquals(1, refused.err().lines().count(), refused.err());
    assertTrue(refused.err().contains("all its 2 checkpoint files (" + checkpoints.get(1).getFileName() + ", "
        + checkpoints.get(0).getFileName() + ") are damaged"), refused.err());
    assertTrue(refused.err().contains("start it again with --overwrite"), refused.err());
    assertFalse(refused.err().contains("--checkpoint-every"), "checkpoints were written: " + refused.err());
  }

  @Test
  void resumeRefusesWhatCannotBeResumed() throws IOException {
    Path crashed = crashedRun("refusals", 25);
    Outcome changed = main("--resume", crashed.toString(), "--lr", "0.02", "--quiet");
    assertEquals(2, changed.code());
    assertEquals(1, changed.err().lines().count(), changed.err());
    assertTrue(changed.err().contains("--resume: settings differ") && changed.err().contains("lr: "), changed.err());

    Path empty = Files.createDirectories(tmp.resolve("not-a-run"));
    Outcome notRun = main("--resume", empty.toString(), "--quiet");
    assertEquals(2, notRun.code());
    assertTrue(notRun.err().startsWith("bitopk: --resume: "), notRun.err());

    Path noCheckpoint = tmp.resolve("no-checkpoint");
    Outcome fresh = main("--dataset", "counterexample", "--epochs", "5", "--output",
        noCheckpoint.toString(), "--quiet");
    assertEquals(0, fresh.code(), fresh.err());
    Files.delete(noCheckpoint.resolve("_SUCCESS"));
    Outcome none = main("--resume", noCheckpoint.toString(), "--quiet");
    assertEquals(2, none.code());
    assertTrue(none.err().contains("no intact checkpoint"), none.err());

    Files.createFile(noCheckpoint.resolve("_SUCCESS"));
    Outcome finished = main("--resume", noCheckpoint.toString(), "--quiet");
    assertEquals(2, finished.code());
    assertTrue(finished.err().contains("finished run"), finished.err());
    assertEquals(1, finished.err().lines().count(), finished.err());
  }

  @Test
  void divergedRunStopsWithOneLineAndKeepsTheLastGoodCheckpoint() throws IOException {
    Path out = tmp.resolve("diverged");
    Outcome o = main("--dataset", "counterexample", "--epochs", "200", "--checkpoint-every", "1",
        "--lr", "1e6", "--output", out.toString(), "--quiet");
    assertEquals(1, o.code());
    assertEquals(1, o.err().lines().count(), o.err());
    assertTrue(o.err().startsWith("bitopk: training diverged: "), o.err());
    assertTrue(o.err().contains("lower --lr"), o.err());
    assertFalse(Files.exists(out.resolve("_SUCCESS")), "no output may pass for a result");
    assertFalse(Files.exists(out.resolve("model.json")));
    Checkpoint last = CheckpointStore.in(fs(), new org.apache.hadoop.fs.Path(out.toUri()), 2).latest().orElseThrow();
    for (float v : last.master()) {
      assertTrue(Float.isFinite(v), "the kept checkpoint holds a finite model");
    }
    assertTrue(last.iteration() >= 1);
  }

  static FileSystem fs() throws IOException {
    return FileSystem.getLocal(new Configuration());
  }

  static float[] parameters(Path run) throws IOException {
    JsonNode model = JSON.readTree(run.resolve("model.json").toFile());
    JsonNode p = model.path("parameters");
    float[] out = new float[p.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (float) p.get(i).asDouble();
    }
    assertNotNull(model.get("objective"));
    return out;
  }

  static List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }

  static Map<String, JsonNode> withoutTimes(JsonNode line) {
    return MetricLines.withoutTimes(line);
  }

  @Test
  void truncatedMetricLinesAreDroppedOnResume() throws IOException {
    Path crashed = crashedRun("torn", 23);
    // a torn last line, as a crash mid-write leaves it
    try (OutputStream out = Files.newOutputStream(crashed.resolve("metrics/iterations.jsonl"),
        java.nio.file.StandardOpenOption.APPEND)) {
      out.write("{\"run\":\"x\",\"iterat".getBytes());
    }
    Outcome resumed = main("--resume", crashed.toString(), "--quiet");
    assertEquals(0, resumed.code(), resumed.err());
    List<JsonNode> lines = lines(crashed.resolve("metrics/iterations.jsonl"));
    assertEquals(ROUNDS, lines.size());
    long[] iterations = lines.stream().mapToLong(l -> l.path("iteration").asLong()).toArray();
    long[] expected = java.util.stream.LongStream.range(0, ROUNDS).toArray();
    assertArrayEquals(expected, iterations);
  }
}
