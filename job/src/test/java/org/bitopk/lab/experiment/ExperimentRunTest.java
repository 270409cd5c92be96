package org.bitopk.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The experiment runner end to end on local[2] with a tiny synthetic problem: every point runs, results.csv
 * holds what the runs' own metric files say (recomputed here from the JSON lines), a second invocation
 * touches no finished point, and a point whose run died after a checkpoint is resumed rather than restarted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExperimentRunTest {
  static final ObjectMapper JSON = new ObjectMapper();
  /** 200 examples, 2 workers, batch 20: 5 rounds per epoch. */
  static final String BASE = "\"dataset\": \"synthetic:n=200,test=100,shape=1x8x8,classes=4\", \"model\": \"mlp-small\","
      + " \"workers\": 2, \"batch-size\": 20, \"density-up\": 0.1, \"density-down\": 0.1";

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  JavaSparkContext sc;
  @TempDir
  Path tmp;

  @BeforeEach
  void context() {
    sc = SPARK.context();
  }

  record Outcome(int code, String out, String err) {}

  Outcome main(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, sc, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  @Test
  void gridRunsEveryPointSummarizesTheirOwnMetricsAndSkipsThemWhenRerun() throws IOException {
    Path grid = tmp.resolve("grid.json");
    Files.writeString(grid, "{\"base\": {" + BASE + ", \"epochs\": 2},"
        + " \"axes\": {\"mode\": [\"bidirectional\", \"unidirectional\"], \"lr\": [0.05, 0.2]}}");
    Path out = tmp.resolve("out");
    Outcome first = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
    assertEquals(0, first.code(), first.err());
    List<String> names = List.of("bidirectional_lr-0.05", "bidirectional_lr-0.2", "unidirectional_lr-0.05",
        "unidirectional_lr-0.2");
    for (String name : names) {
      assertTrue(Files.exists(out.resolve(name).resolve("_SUCCESS")), name);
      assertTrue(first.out().contains("] " + name + ": starting"), first.out());
    }

    List<Map<String, String>> rows = csv(out.resolve("results.csv"));
    assertEquals(4, rows.size());
    for (Map<String, String> row : rows) {
      String name = row.get("point");
      assertTrue(names.contains(name), name);
      Path run = out.resolve(name);
      assertEquals(name.startsWith("bi") ? "bidirectional" : "unidirectional", row.get("mode"));
      assertEquals(Double.parseDouble(name.substring(name.indexOf("lr-") + 3)), Double.parseDouble(row.get("lr")));
      List<JsonNode> epochs = lines(run.resolve("metrics/epochs.jsonl"));
      List<JsonNode> iterations = lines(run.resolve("metrics/iterations.jsonl"));
      JsonNode last = epochs.get(epochs.size() - 1);
      assertEquals(last.get("test_accuracy").asDouble(), Double.parseDouble(row.get("final_test_accuracy")), name);
      assertEquals(epochs.stream().mapToDouble(e -> e.get("test_accuracy").asDouble()).max().orElseThrow(),
          Double.parseDouble(row.get("best_test_accuracy")), name);
      assertEquals(10, iterations.size());
      assertEquals(iterations.size(), Long.parseLong(row.get("rounds")));
      // the cumulative figures the engine wrote per epoch against the runner's sums over rounds
      assertEquals(last.get("cum_up_bytes").asLong(), Long.parseLong(row.get("up_bytes")), name);
      assertEquals(last.get("cum_down_bytes").asLong(), Long.parseLong(row.get("down_bytes")), name);
      assertEquals(last.get("cum_down_bytes_delivered").asLong(), Long.parseLong(row.get("down_bytes_delivered")));
      double ratio = iterations.stream()
          .mapToDouble(i -> i.get("down_nnz").asDouble() / i.get("agg_nnz").asDouble()).average().orElseThrow();
      assertEquals(ratio, Double.parseDouble(row.get("down_agg_nnz_ratio")), 1e-12, name);
      if (name.startsWith("uni")) {
        assertEquals(1.0, ratio, 1e-12, "the unidirectional downlink carries the whole aggregate");
      } else {
        assertTrue(ratio < 1.0, "TopK of the aggregate keeps fewer entries than the aggregate has: " + ratio);
      }
      double wall = iterations.stream().mapToDouble(i -> i.get("time_total_ms").asDouble()).sum() / 1000;
      assertEquals(wall, Double.parseDouble(row.get("wall_seconds")), 1e-9, name);
      // the point's config.json reruns it: its settings are the grid's
      JsonNode config = JSON.readTree(run.resolve("config.json").toFile());
      assertEquals(row.get("mode"), config.get("mode").asText());
      assertEquals(2, config.get("epochs").asInt());
    }
    String md = Files.readString(out.resolve("results.md"));
    assertTrue(md.contains("| lr | bidirectional | unidirectional |"), md);
    assertTrue(Files.size(out.resolve("compare-lr-0.05.png")) > 1000);
    assertTrue(Files.size(out.resolve("compare-lr-0.2.png")) > 1000);

    Map<Path, Long> before = modificationTimes(out, names);
    Outcome second = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
    assertEquals(0, second.code(), second.err());
    assertEquals(4, second.out().split("finished earlier, skipped", -1).length - 1, second.out());
    assertEquals(before, modificationTimes(out, names), "a finished point was touched");
    // each invocation appends the machine and its load: two invocations, two entries
    JsonNode environment = JSON.readTree(out.resolve("environment.json").toFile());
    assertEquals(2, environment.size(), environment.toString());
    for (JsonNode entry : environment) {
      assertEquals(Runtime.getRuntime().availableProcessors(), entry.get("cores").asInt());
      assertEquals(3, entry.get("load_at_start").size(), entry.toString());
      assertTrue(entry.get("load_at_end").get(0).asDouble() >= 0, entry.toString());
      assertTrue(entry.get("finished").asText().compareTo(entry.get("started").asText()) >= 0, entry.toString());
    }

    Files.delete(out.resolve("results.csv"));
    Outcome summary = main("experiment", "--summarize", out.toString());
    assertEquals(0, summary.code(), summary.err());
    assertEquals(rows, csv(out.resolve("results.csv")));
  }

  @Test
  void aPointWhoseRunDiedAfterACheckpointIsResumedNotRestarted() throws IOException {
    Path grid = tmp.resolve("twins.json");
    // Two points with the same settings: one runs uninterrupted, the other resumes; they must agree.
    Files.writeString(grid, "{\"base\": {" + BASE + ", \"epochs\": 3, \"checkpoint-every\": 5},"
        + " \"points\": [{\"name\": \"whole\"}, {\"name\": \"resumed\"}]}");
    Path out = tmp.resolve("twins");
    String crashedRunId = crashPoint(grid, 1, out.resolve("resumed"), 8);
    List<JsonNode> early = lines(out.resolve("resumed/metrics/iterations.jsonl")).subList(0, 5);

    Outcome run = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("] whole: starting"), run.out());
    assertTrue(run.out().contains("] resumed: resuming from its newest checkpoint"), run.out());
    assertTrue(Files.exists(out.resolve("resumed/_SUCCESS")));

    List<JsonNode> resumed = lines(out.resolve("resumed/metrics/iterations.jsonl"));
    List<JsonNode> whole = lines(out.resolve("whole/metrics/iterations.jsonl"));
    assertEquals(15, resumed.size());
    assertEquals(early, resumed.subList(0, 5), "the rounds before the checkpoint are kept, not rerun");
    for (JsonNode line : resumed) {
      assertEquals(crashedRunId, line.get("run").asText(), "a restarted run would have a new run id");
    }
    assertNotEquals(crashedRunId, whole.get(0).get("run").asText());
    for (int i = 0; i < 15; i++) {
      assertEquals(whole.get(i).get("iteration").asLong(), resumed.get(i).get("iteration").asLong());
      assertEquals(whole.get(i).get("loss").asDouble(), resumed.get(i).get("loss").asDouble(), "round " + i);
    }
    List<Map<String, String>> rows = csv(out.resolve("results.csv"));
    assertEquals(2, rows.size());
    assertEquals(rows.get(0).get("final_test_accuracy"), rows.get(1).get("final_test_accuracy"));
  }

  @Test
  void aPointWhoseRunDiedBeforeItsFirstCheckpointIsStartedOver() throws IOException {
    Path grid = tmp.resolve("early.json");
    Files.writeString(grid, "{\"base\": {" + BASE + ", \"epochs\": 2, \"checkpoint-every\": 5},"
        + " \"points\": [{\"name\": \"whole\"}, {\"name\": \"died\"}]}");
    Path out = tmp.resolve("early");
    String crashedRunId = crashPoint(grid, 1, out.resolve("died"), 2);   // before the round-5 checkpoint
    assertEquals(2, lines(out.resolve("died/metrics/iterations.jsonl")).size());
    Path checkpoints = out.resolve("died/checkpoints");
    if (Files.exists(checkpoints)) {
      try (Stream<Path> files = Files.list(checkpoints)) {
        assertEquals(List.of(), files.toList(), "no checkpoint to resume from");
      }
    }

    Outcome run = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("] died: starting over (its earlier run stopped before a checkpoint)"), run.out());
    assertTrue(Files.exists(out.resolve("died/_SUCCESS")));
    List<JsonNode> died = lines(out.resolve("died/metrics/iterations.jsonl"));
    List<JsonNode> whole = lines(out.resolve("whole/metrics/iterations.jsonl"));
    assertEquals(10, died.size(), "the dead run's 2 lines are replaced, not kept");
    assertNotEquals(crashedRunId, died.get(0).get("run").asText(), "a new run, not the dead one continued");
    for (int i = 0; i < 10; i++) {
      assertEquals(whole.get(i).get("loss").asDouble(), died.get(i).get("loss").asDouble(), "round " + i);
    }
  }

  @Test
  void aDivergedPointIsReportedAndTheGridGoesOn() throws IOException {
    Path grid = tmp.resolve("diverging.json");
    Files.writeString(grid, "{\"base\": {\"dataset\": \"counterexample\", \"epochs\": 30},"
        + " \"points\": [{\"lr\": 1e6}, {\"lr\": 0.01}]}");
    Path out = tmp.resolve("diverging");
    Outcome run = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
    assertEquals(1, run.code(), run.err());
    assertTrue(run.out().contains("[1/2] lr-1000000.0: diverged, not finished: "), run.out());
    assertTrue(run.out().contains("[2/2] lr-0.01: done in "), run.out());
    assertEquals("bitopk: 1 point(s) diverged (see their lines above)", run.err().strip());
    assertTrue(Files.exists(out.resolve("lr-0.01/_SUCCESS")));
    assertTrue(!Files.exists(out.resolve("lr-1000000.0/_SUCCESS")));
    assertEquals(List.of("lr-0.01"), csv(out.resolve("results.csv")).stream().map(r -> r.get("point")).toList());
    assertTrue(Files.readString(out.resolve("results.md")).contains("1 of 2 points finished; not finished: "
        + "lr-1000000.0."));
  }

  /**
   * Runs point {@code index} of the grid into {@code dir} as the runner would, crashing it in round
   * {@code iteration}; returns the dead run's id.
   */
  String crashPoint(Path grid, int index, Path dir, long iteration) throws IOException {
    Grid parsed = Grid.read(grid.toString(), sc.hadoopConfiguration());
    TrainingConfig config = FlagValues.configOf(parsed.points().get(index).settings(), sc.hadoopConfiguration()).toBuilder()
        .output(dir.toString()).quiet(true).build();
    RunListener crash = new RunListener() {
      @Override
      public void onIteration(IterationRecord record, DriverState state) {
        if (state.iteration() == iteration) {
          throw new IllegalStateException("simulated crash");
        }
      }
    };
    assertThrows(IllegalStateException.class, () -> TrainingRun.execute(sc, config, false, List.of(crash)));
    return JSON.readTree(dir.resolve("config.json").toFile()).get("run").asText();
  }

  static List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        nodes.add(JSON.readTree(line));
      }
    }
    return nodes;
  }

  /** results.csv as header name to value per row (RFC 4180 quoting: the dataset text holds commas). */
  static List<Map<String, String>> csv(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    String[] header = fields(lines.get(0));
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] fields = fields(line);
      assertEquals(header.length, fields.length, line);
      Map<String, String> row = new HashMap<>();
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], fields[i]);
      }
      rows.add(row);
    }
    return rows;
  }

  static String[] fields(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
        field.append('"');
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields.toArray(String[]::new);
  }

  static Map<Path, Long> modificationTimes(Path out, List<String> names) throws IOException {
    Map<Path, Long> times = new TreeMap<>();
    for (String name : names) {
      try (Stream<Path> files = Files.walk(out.resolve(name))) {
        for (Path p : (Iterable<Path>) files::iterator) {
          times.put(p, Files.getLastModifiedTime(p).toMillis());
        }
      }
    }
    return times;
  }
}
