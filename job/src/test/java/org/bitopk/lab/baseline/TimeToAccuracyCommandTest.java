package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A miniature of {@code time-to-accuracy} (synthetic 28×28 data, 2 workers, one short epoch) checked against
 * its own trace files and the formulas written out here: the table's columns, time and bytes to the target
 * recomputed from the traces, bitopk's bytes from its metrics, empty cells for a target not reached; bad flags are
 * one line and exit code 2, and so is a DL4J Spark master on a build without them (job/dl4j-baselines has its
 * own miniature, Dl4jMastersComparisonTest).
 */
public class TimeToAccuracyCommandTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  /** The Fashion-MNIST MLP 784-256-128-64-10 (README, ModelArchitecture): weights and biases. */
  static final long D = 784L * 256 + 256 + 256L * 128 + 128 + 128L * 64 + 64 + 64L * 10 + 10;
  static final int WORKERS = 2;
  static final int EVAL_EVERY = 3;
  static final double TARGET = 0.5;

  @TempDir
  static Path tmp;
  static Path out;
  static int exitCode;
  static String stdout;

  @BeforeAll
  static void runMiniature() {
    out = tmp.resolve("tta");
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    exitCode = Main.execute(new String[] {"time-to-accuracy", "--out", out.toString(),
        "--dataset", "synthetic:n=640,test=200,noise=3",
        "--systems", "bitopk-bidirectional,bitopk-dense,single-jvm",
        "--workers", "" + WORKERS, "--batch-size", "16", "--eval-every", "" + EVAL_EVERY, "--epochs", "1",
        "--target", "" + TARGET, "--lr", "0.05", "--max-seconds", "120"},
        SPARK.context(), new PrintWriter(o, true), new PrintWriter(e, true));
    stdout = o + e.toString();
  }

  /** A CSV file with a header line (RFC 4180 cells): header name to cell, one map a row. */
  public static List<Map<String, String>> table(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<String> header = split(lines.get(0));
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      List<String> cells = split(line);
      assertEquals(header.size(), cells.size(), line);
      Map<String, String> row = new HashMap<>();
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), cells.get(i));
      }
      rows.add(row);
    }
    return rows;
  }

  /** RFC 4180 cells, written here independently of the command's writer. */
  private static List<String> split(String line) {
    List<String> cells = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cell.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cell.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.add(cell.toString());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    cells.add(cell.toString());
    return cells;
  }

  private static Map<String, String> row(String system) throws IOException {
    return table(out.resolve("time-to-accuracy.csv")).stream().filter(r -> r.get("system").equals(system))
        .findFirst().orElseThrow();
  }

  @Test
  void writesTheTableWithExactlyTheAgreedColumnsAndEverythingElse() throws IOException {
    assertEquals(0, exitCode, stdout);
    assertEquals("system,details,target_accuracy,seconds_to_target,bytes_to_target,final_accuracy,"
        + "accuracy_at_equal_time,equal_time_seconds,wall_seconds,bytes_total,cold_seconds_to_target,cold_details,"
        + "ms_compute,ms_communication,ms_rest",
        Files.readAllLines(out.resolve("time-to-accuracy.csv")).get(0));
    assertEquals(List.of("bitopk-bidirectional", "bitopk-dense", "single-jvm"),
        table(out.resolve("time-to-accuracy.csv")).stream().map(r -> r.get("system")).toList());
    for (Map<String, String> row : table(out.resolve("time-to-accuracy.csv"))) {
      assertEquals("", row.get("cold_seconds_to_target"), row.toString());
      assertEquals("not measured (no --cold)", row.get("cold_details"), row.toString());
    }
    assertFalse(Files.exists(out.resolve(ColdStart.DIRECTORY)), "no cold runs without --cold");
    // bitopk's rounds are split (every term a number, none negative); the single-JVM fit does not measure it
    for (String system : List.of("bitopk-bidirectional", "bitopk-dense")) {
      for (String term : List.of("ms_compute", "ms_communication", "ms_rest")) {
        assertTrue(Double.parseDouble(row(system).get(term)) >= 0, system + " " + term);
      }
    }
    assertEquals("", row("single-jvm").get("ms_compute"));
    assertTrue(stdout.contains("single-jvm") && stdout.contains("compute  communication"), stdout);
    for (String f : List.of("time-to-accuracy.png", "environment.json", "trace-single-jvm.csv",
        "bitopk-bidirectional/metrics/iterations.jsonl")) {
      assertTrue(Files.size(out.resolve(f)) > 0, f);
    }
    assertTrue(Files.exists(out.resolve("bitopk-bidirectional/_SUCCESS")), "bitopk's run is an ordinary finished run");
    assertFalse(Files.exists(out.resolve(WarmedUpSystem.SCRATCH)), "the warm-ups leave nothing behind");
    assertEquals(3, stdout.lines().filter(l -> l.contains("warming up (30.0 s, not measured)")).count(), stdout);
    JsonNode env = new ObjectMapper().readTree(out.resolve("environment.json").toFile());
    assertTrue(env.get(0).get("command").asText().startsWith("time-to-accuracy"), env.toString());
    long success = Files.getLastModifiedTime(out.resolve("_SUCCESS")).toMillis();
    try (var files = Files.list(out)) {
      for (Path p : files.filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {   // not Hadoop's .crc
        assertTrue(Files.getLastModifiedTime(p).toMillis() <= success, p + " written after _SUCCESS");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"bitopk-bidirectional", "bitopk-dense", "single-jvm"})
  void timeAndBytesToTargetAreTheFirstEvaluationAtOrAboveTheTarget(String system) throws IOException {
    List<Map<String, String>> trace = table(out.resolve("trace-" + system + ".csv"));
    Map<String, String> row = row(system);
    Map<String, String> first = trace.stream().filter(p -> Double.parseDouble(p.get("accuracy")) >= TARGET)
        .findFirst().orElse(null);
    if (first == null) {
      assertEquals("", row.get("seconds_to_target"));
      assertEquals("", row.get("bytes_to_target"));
    } else {
      assertEquals(Double.parseDouble(first.get("seconds")), Double.parseDouble(row.get("seconds_to_target")), 1e-9);
      assertEquals(first.get("bytes"), row.get("bytes_to_target"));
    }
    Map<String, String> last = trace.get(trace.size() - 1);
    assertEquals(Double.parseDouble(last.get("seconds")), Double.parseDouble(row.get("wall_seconds")), 1e-9);
    assertEquals(last.get("accuracy"), row.get("final_accuracy"));
    assertEquals(last.get("bytes"), row.get("bytes_total"));
    // the trace starts at the initial model and is evaluated every EVAL_EVERY rounds
    assertEquals("0", trace.get(0).get("rounds"));
    assertEquals(0.0, Double.parseDouble(trace.get(0).get("seconds")));
    assertEquals(EVAL_EVERY, Long.parseLong(trace.get(1).get("rounds")));
    // accuracy after equal time: the last evaluation at or before the shortest wall time
    double equal = Double.parseDouble(row.get("equal_time_seconds"));
    Map<String, String> atEqual = null;
    for (Map<String, String> p : trace) {
      if (Double.parseDouble(p.get("seconds")) <= equal) {
        atEqual = p;
      }
    }
    assertEquals(atEqual.get("accuracy"), row.get("accuracy_at_equal_time"));
  }

  @Test
  void bitopkBytesAreTheSumsOfItsOwnMetrics() throws IOException {
    List<String> lines = Files.readAllLines(out.resolve("bitopk-bidirectional/metrics/iterations.jsonl"));
    ObjectMapper json = new ObjectMapper();
    long[] cumulative = new long[lines.size() + 1];
    for (String line : lines) {
      JsonNode n = json.readTree(line);
      int t = n.get("iteration").asInt();
      cumulative[t + 1] = n.get("up_bytes").asLong() + n.get("down_bytes_delivered").asLong();
    }
    for (int t = 1; t < cumulative.length; t++) {
      cumulative[t] += cumulative[t - 1];
    }
    List<Map<String, String>> trace = table(out.resolve("trace-bitopk-bidirectional.csv"));
    assertTrue(trace.size() > 2, trace.toString());
    for (Map<String, String> p : trace) {
      assertEquals(cumulative[Integer.parseInt(p.get("rounds"))], Long.parseLong(p.get("bytes")), p.toString());
    }
    assertEquals(lines.size(), Long.parseLong(trace.get(trace.size() - 1).get("rounds")));
  }

  @Test
  void theBudgetStopsBitopkAfterTheRoundThatExceedsItAsAFinishedRun() throws IOException {
    Path budget = tmp.resolve("budget");
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", budget.toString(),
        "--dataset", "synthetic:n=640,test=100", "--systems", "bitopk-dense", "--workers", "" + WORKERS,
        "--batch-size", "16", "--eval-every", "5", "--max-seconds", "1e-9"},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(0, code, e.toString());
    assertEquals(List.of("0", "1"), table(budget.resolve("trace-bitopk-dense.csv")).stream()
        .map(p -> p.get("rounds")).toList());
    assertEquals(1, Files.readAllLines(budget.resolve("bitopk-dense/metrics/iterations.jsonl")).size());
    JsonNode epoch = new ObjectMapper().readTree(
        Files.readAllLines(budget.resolve("bitopk-dense/metrics/epochs.jsonl")).get(0));
    assertTrue(epoch.get("partial").asBoolean(), epoch.toString());
    assertTrue(Files.exists(budget.resolve("bitopk-dense/_SUCCESS")));
  }

  @Test
  void aBitopkSystemWithItsOwnDensityRunsAtItAndTheOthersAtDensityFlag() throws IOException {
    Path dir = tmp.resolve("densities");
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", dir.toString(),
        "--dataset", "synthetic:n=640,test=100", "--systems", "bitopk-bidirectional-rho-0.0500,bitopk-bidirectional",
        "--density", "0.005", "--warm-up-seconds", "0", "--workers", "" + WORKERS, "--batch-size", "16",
        "--eval-every", "5", "--max-seconds", "1e-9"},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(0, code, e.toString());
    ObjectMapper json = new ObjectMapper();
    for (var system : Map.of("bitopk-bidirectional-rho-0.05", 0.05, "bitopk-bidirectional", 0.005).entrySet()) {
      Path run = dir.resolve(system.getKey());
      double rho = system.getValue();
      JsonNode config = json.readTree(run.resolve("config.json").toFile());
      assertEquals(rho, config.get("density-up").asDouble(), run.toString());
      JsonNode first = json.readTree(Files.readAllLines(run.resolve("metrics/iterations.jsonl")).get(0));
      assertEquals(rho * D, first.get("up_target_k").asDouble(), 1.0, first.toString());
      Map<String, String> row = table(dir.resolve("time-to-accuracy.csv")).stream()
          .filter(r -> r.get("system").equals(system.getKey())).findFirst().orElseThrow();
      assertTrue(row.get("details").contains("rho " + rho + " up and down"), row.toString());
    }
  }

  /**
   * A bitopk system named with -values-FORMAT sends its values in it: up and down when bidirectional, up only when
   * unidirectional (its config.json), and its uplink messages cost what the format's values and the indices do.
   */
  @Test
  void aBitopkSystemWithAValueFormatSendsItsValuesInIt() throws IOException {
    Path dir = tmp.resolve("values");
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", dir.toString(),
        "--dataset", "synthetic:n=640,test=100", "--systems",
        "bitopk-bidirectional-rho-0.05-values-int8,bitopk-unidirectional-values-fp16", "--density", "0.05",
        "--warm-up-seconds", "0", "--workers", "" + WORKERS, "--batch-size", "16", "--eval-every", "5",
        "--max-seconds", "1e-9"},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(0, code, e.toString());
    ObjectMapper json = new ObjectMapper();
    // system, values up, values down (absent: fp32), most bytes a sent coordinate (values + about 0.75 of index)
    Object[][] systems = {{"bitopk-bidirectional-rho-0.05-values-int8", "int8", "int8", 3.0},
        {"bitopk-unidirectional-values-fp16", "fp16", null, 4.0}};
    for (Object[] system : systems) {
      Path run = dir.resolve((String) system[0]);
      JsonNode config = json.readTree(run.resolve("config.json").toFile());
      assertEquals(system[1], config.get("values-up").asText(), run.toString());
      assertEquals(system[2], config.has("values-down") ? config.get("values-down").asText() : null, run.toString());
      JsonNode first = json.readTree(Files.readAllLines(run.resolve("metrics/iterations.jsonl")).get(0));
      double perCoordinate = first.get("up_bytes").asDouble() / first.get("up_nnz").asDouble();
      assertTrue(perCoordinate < (double) system[3], system[0] + ": " + perCoordinate);
      Map<String, String> row = table(dir.resolve("time-to-accuracy.csv")).stream()
          .filter(r -> r.get("system").equals(system[0])).findFirst().orElseThrow();
      assertTrue(row.get("details").contains(system[1] + " values up"), row.toString());
    }
  }

  /**
   * The learning-rate grid: each system's chosen rate is the one with the fewest rounds to the target, recomputed
   * here from the grid's trace files; a point that reached the target stopped there; dense FP16 moves half of
   * dense FP32's bytes per round and the SIDCo and DGC uplinks (ρ = 0.01) a small share of them. A timed run with
   * --lr-choice trains each system at its chosen rate and says so in its details.
   */
  @Test
  void theGridChoosesTheRateWithTheFewestRoundsToTheTargetAndTheTimedRunUsesIt() throws IOException {
    Path grid = tmp.resolve("grid");
    List<String> systems = List.of("bitopk-dense", "bitopk-dense-fp16", "bitopk-sidco", "bitopk-dgc");
    List<String> rates = List.of("0.01", "0.2");
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", grid.toString(),
        "--dataset", "synthetic:n=640,test=200,noise=3", "--systems", String.join(",", systems),
        "--lr-grid", String.join(",", rates), "--grid-rounds", "24", "--workers", "" + WORKERS, "--batch-size", "16",
        "--eval-every", "" + EVAL_EVERY, "--epochs", "2", "--target", "" + TARGET},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(0, code, e.toString());
    JsonNode choice = new ObjectMapper().readTree(grid.resolve("lr-choice.json").toFile());
    Map<String, Double> bytesPerRound = new HashMap<>();
    int decided = 0;
    for (String system : systems) {
      String best = null;
      long bestRounds = Long.MAX_VALUE;
      for (String lr : rates) {
        List<Map<String, String>> trace = table(grid.resolve("lr-grid/trace-" + system + "-lr-" + lr + ".csv"));
        Map<String, String> last = trace.get(trace.size() - 1);
        long reached = trace.stream().filter(p -> Double.parseDouble(p.get("accuracy")) >= TARGET)
            .mapToLong(p -> Long.parseLong(p.get("rounds"))).findFirst().orElse(-1);
        long rounds = Long.parseLong(last.get("rounds"));
        assertTrue(rounds <= 24, system + " at " + lr + " ran " + rounds + " rounds, past --grid-rounds 24");
        if (reached >= 0) {
          assertEquals(reached, rounds, system + " at " + lr + " went on past the target");
          if (reached < bestRounds) {
            best = lr;
            bestRounds = reached;
          }
        }
        if (lr.equals("0.01")) {
          bytesPerRound.put(system, Double.parseDouble(last.get("bytes")) / rounds);
        }
      }
      if (best != null) {
        decided++;
        assertEquals(Double.parseDouble(best), choice.path("systems").path(system).path("lr").asDouble(),
            system + ": " + choice);
      }
    }
    assertTrue(decided >= 2, "fewer than two systems reached the target at any rate: " + choice);
    double ratio = bytesPerRound.get("bitopk-dense-fp16") / bytesPerRound.get("bitopk-dense");
    assertTrue(ratio > 0.49 && ratio < 0.52, "dense fp16 moved " + ratio + " of dense fp32's bytes per round");
    for (String sparse : List.of("bitopk-sidco", "bitopk-dgc")) {
      assertTrue(bytesPerRound.get(sparse) < 0.1 * bytesPerRound.get("bitopk-dense"),
          sparse + " moved " + bytesPerRound.get(sparse) + " bytes per round, dense " + bytesPerRound);
    }

    Path timed = tmp.resolve("timed-with-choice");
    code = Main.execute(new String[] {"time-to-accuracy", "--out", timed.toString(),
        "--dataset", "synthetic:n=640,test=200,noise=3", "--systems", "bitopk-dgc",
        "--lr-choice", grid.resolve("lr-choice.json").toString(), "--warm-up-seconds", "0", "--workers", "" + WORKERS,
        "--batch-size", "16", "--eval-every", "5", "--max-seconds", "1e-9"},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(0, code, e.toString());
    double chosen = choice.path("systems").path("bitopk-dgc").path("lr").asDouble();
    JsonNode config = new ObjectMapper().readTree(timed.resolve("bitopk-dgc/config.json").toFile());
    assertEquals(chosen, config.get("lr").asDouble(), config.toString());
    Map<String, String> row = table(timed.resolve("time-to-accuracy.csv")).get(0);
    assertTrue(row.get("details").startsWith("lr " + ComparisonTable.number(chosen) + " chosen by rounds to"),
        row.toString());
    assertTrue(Files.exists(timed.resolve("lr-choice.json")));
  }

  /**
   * --stop-at-target ends every system at its first evaluation at or above the target (none of its earlier ones
   * reached it); --warm-up-rounds warms every system up for that many rounds before the first is measured, and
   * each row's details give its pace, which is the trace's own.
   */
  @Test
  void stopAtTargetEndsEachSystemAtItsFirstEvaluationAtTheTargetAfterEverySystemWarmedUp() throws IOException {
    Path dir = tmp.resolve("stop-at-target");
    String console = stopAtTarget(dir, "--warm-up-rounds", "4");
    List<String> warmUps = console.lines().filter(l -> l.startsWith("[warm-up ")).toList();
    assertEquals(2, warmUps.size(), console);
    warmUps.forEach(l -> assertTrue(l.endsWith(": 4 rounds, not measured"), l));
    assertTrue(allBefore(console, "[warm-up ", "[1/2] "), "every system warms up before the first is measured:\n"
        + console);
    assertFalse(console.contains("warming up ("), "no warm-up in seconds besides the rounds:\n" + console);
    assertFalse(Files.exists(dir.resolve(WarmedUpSystem.SCRATCH)));
    for (String system : List.of("bitopk-bidirectional", "single-jvm")) {
      List<Map<String, String>> trace = table(dir.resolve("trace-" + system + ".csv"));
      Map<String, String> last = trace.get(trace.size() - 1);
      assertTrue(Double.parseDouble(last.get("accuracy")) >= TARGET, system + " stopped below the target: " + trace);
      for (Map<String, String> p : trace.subList(0, trace.size() - 1)) {
        assertTrue(Double.parseDouble(p.get("accuracy")) < TARGET, system + " went on past the target: " + trace);
      }
      Map<String, String> row = table(dir.resolve("time-to-accuracy.csv")).stream()
          .filter(r -> r.get("system").equals(system)).findFirst().orElseThrow();
      assertEquals(last.get("seconds"), row.get("seconds_to_target"));
      if (trace.size() > 2) {   // a pace needs an evaluation after the first
        Map<String, String> split = trace.get(1);
        double first = Double.parseDouble(split.get("seconds")) / Long.parseLong(split.get("rounds"));
        double later = (Double.parseDouble(last.get("seconds")) - Double.parseDouble(split.get("seconds")))
            / (Long.parseLong(last.get("rounds")) - Long.parseLong(split.get("rounds")));
        assertTrue(row.get("details").contains(String.format(java.util.Locale.ROOT,
            "pace: first %s rounds %.4f s/round, later %d rounds %.4f s/round", split.get("rounds"), first,
            Long.parseLong(last.get("rounds")) - Long.parseLong(split.get("rounds")), later)), row.toString());
      }
    }
  }

  /** Past --start-within no system starts: each is a row "not run", and the comparison still finishes. */
  @Test
  void systemsLeftWhenTheStartWithinHasPassedAreRowsNotRunAndTheOutputIsComplete() throws IOException {
    Path dir = tmp.resolve("start-within");
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", dir.toString(),
        "--dataset", "synthetic:n=640,test=100", "--systems", "bitopk-dense,single-jvm", "--workers", "" + WORKERS,
        "--batch-size", "16", "--eval-every", "5", "--start-within", "1e-9"},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(0, code, e.toString());
    List<Map<String, String>> rows = table(dir.resolve("time-to-accuracy.csv"));
    assertEquals(List.of("bitopk-dense", "single-jvm"), rows.stream().map(r -> r.get("system")).toList());
    for (Map<String, String> row : rows) {
      assertTrue(row.get("details").startsWith("FAILED: not run: --start-within 1e-09 s had passed"), row.toString());
      assertEquals("", row.get("wall_seconds"));
    }
    assertFalse(Files.exists(dir.resolve("bitopk-dense")), "nothing trained");
    assertTrue(Files.exists(dir.resolve("_SUCCESS")));
  }

  /**
   * --cold: before the warm runs each system also runs in a JVM of its own (another pid, in its own
   * environment.json) with no warm-up, stopping at its first evaluation at the target; its cold seconds, from its
   * launch to its trace, exceed its own training clock to the target (its trace), which the row states.
   */
  @Test
  void coldRunsEachSystemInAJvmOfItsOwnFromItsLaunchToTheTarget() throws IOException {
    Path dir = tmp.resolve("cold");
    String console = stopAtTarget(dir, "--cold", "--warm-up-seconds", "0");
    List<String> systems = List.of("bitopk-bidirectional", "single-jvm");
    ObjectMapper json = new ObjectMapper();
    long parent = ProcessHandle.current().pid();
    assertEquals(parent, json.readTree(dir.resolve("environment.json").toFile()).get(0).get("pid").asLong());
    List<Map<String, String>> rows = table(dir.resolve("time-to-accuracy.csv"));
    assertEquals(systems, rows.stream().map(r -> r.get("system")).toList());
    for (Map<String, String> row : rows) {
      String system = row.get("system");
      Path child = dir.resolve(ColdStart.DIRECTORY).resolve(system);
      List<Map<String, String>> trace = table(child.resolve("trace-" + system + ".csv"));
      Map<String, String> last = trace.get(trace.size() - 1);
      assertTrue(Double.parseDouble(last.get("accuracy")) >= TARGET, system + " cold, below the target: " + trace);
      for (Map<String, String> p : trace.subList(0, trace.size() - 1)) {
        assertTrue(Double.parseDouble(p.get("accuracy")) < TARGET, system + " cold, on past the target: " + trace);
      }
      double training = Double.parseDouble(last.get("seconds"));
      double cold = Double.parseDouble(row.get("cold_seconds_to_target"));
      assertTrue(cold > training, system + ": cold " + cold + " s, its training alone " + training + " s");
      long pid = json.readTree(child.resolve("environment.json").toFile()).get(0).get("pid").asLong();
      assertTrue(pid != parent, system + " ran in this JVM");
      assertTrue(row.get("cold_details").startsWith("own JVM, pid " + pid + ", and Spark application; its training "
          + "clock " + last.get("seconds") + " s to the target, at round " + last.get("rounds") + ";"), row.toString());
      String log = Files.readString(dir.resolve(ColdStart.DIRECTORY).resolve(system + ".log"));
      assertTrue(log.contains("[1/1] " + system + ": training"), log);
      assertFalse(log.contains("warming up"), "a cold run has no warm-up: " + log);
    }
    assertTrue(allBefore(console, "[cold ", "[1/2] "), "the cold runs come before the warm ones:\n" + console);
    assertTrue(console.lines().anyMatch(l -> l.startsWith("[2/2] single-jvm: ") && l.contains("; cold: ")
        && l.contains(" s from its launch to the target")), console);
  }

  /**
   * The miniature that stops at the target (bitopk bidirectional and the single-JVM fit, 2 epochs) with {@code more}
   * flags, into {@code dir}: its console, after asserting that it succeeded.
   */
  private static String stopAtTarget(Path dir, String... more) {
    List<String> args = new ArrayList<>(List.of("time-to-accuracy", "--out", dir.toString(),
        "--dataset", "synthetic:n=640,test=200,noise=3", "--systems", "bitopk-bidirectional,single-jvm",
        "--workers", "" + WORKERS, "--batch-size", "16", "--eval-every", "" + EVAL_EVERY, "--epochs", "2",
        "--target", "" + TARGET, "--lr", "0.05", "--max-seconds", "120", "--stop-at-target"));
    args.addAll(List.of(more));
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), SPARK.context(), new PrintWriter(o, true),
        new PrintWriter(e, true));
    String console = o + e.toString();
    assertEquals(0, code, console);
    return console;
  }

  /** Whether every line starting with {@code first} comes before the first line starting with {@code then}. */
  private static boolean allBefore(String console, String first, String then) {
    List<String> lines = console.lines().toList();
    int last = -1;
    int next = lines.size();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(first)) {
        last = i;
      } else if (lines.get(i).startsWith(then)) {
        next = Math.min(next, i);
      }
    }
    return last < next;
  }

  @Test
  void coldWithTheLearningRateGridIsOneLineAndExitCode2() {
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", tmp.resolve("bad-cold").toString(),
        "--cold", "--lr-grid", "0.1"}, SPARK.context(), new PrintWriter(new StringWriter(), true),
        new PrintWriter(e, true));
    assertEquals(2, code, e.toString());
    assertEquals(List.of("bitopk: --cold: times each system from its command to the target, and --lr-grid times "
        + "nothing; choose the rates first, then pass --lr-choice with --cold (see --help)"),
        e.toString().lines().toList());
    assertFalse(Files.exists(tmp.resolve("bad-cold")));
  }

  @Test
  void singleJvmMovesNoBytes() throws IOException {
    assertEquals("0", row("single-jvm").get("bytes_total"));
  }

  @Test
  void aTargetNeverReachedLeavesItsCellsEmpty() {
    Trace trace = Trace.of(List.of(new TracePoint(0, 0, 0, 0.1, 2.3), new TracePoint(5, 1.5, 100, 0.6, 1.0)));
    String csv = ComparisonTable.csv(List.of(SystemResult.ok("a", "x, y", trace)), 0.85,
        Map.of("a", ColdResult.none("not within 540 s: stopped, no trace; own JVM")));
    List<String> cells = split(csv.lines().toList().get(1));
    assertEquals(List.of("a", "x, y", "0.85", "", "", "0.6", "0.6", "1.5", "1.5", "100", "",
        "not within 540 s: stopped, no trace; own JVM", "", "", ""), cells);
    String reached = ComparisonTable.csv(List.of(SystemResult.ok("a", "x", trace)), 0.5,
        Map.of("a", ColdResult.reached(12.25, "own JVM")));
    assertEquals(List.of("12.25", "own JVM"), split(reached.lines().toList().get(1)).subList(10, 12));
    assertEquals(List.of("a", "x", "0.5", "1.5", "100"), split(reached.lines().toList().get(1)).subList(0, 5));
  }

  @ParameterizedTest
  @ValueSource(strings = {"--eval-every=0", "--systems=patm-0", "--systems=dl4j", "--target=1.5",
      "--max-seconds=-1", "--workers=x", "--warm-up-seconds=-1", "--warm-up-rounds=-1", "--start-within=0", "--systems=bitopk-dense-rho-0.1",
      "--systems=bitopk-bidirectional-rho-1.5", "--systems=bitopk-unidirectional-rho-x",
      "--systems=bitopk-bidirectional-rho-0.1,bitopk-bidirectional-rho-0.10",
      "--systems=bitopk-bidirectional-values-fp8", "--systems=bitopk-dense-values-fp16",
      "--systems=bitopk-dense-fp16-rho-0.1", "--lr-grid=0", "--grid-rounds=0", "--rates=100mbit", "--rates=fast",
      "--lr-choice=/nonexistent/lr-choice.json", "--cut=2:r100:80", "--cut=2:100:80"})
  void badFlagsAreOneLineAndExitCode2(String flag) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", tmp.resolve("bad").toString(), flag},
        SPARK.context(), new PrintWriter(o, true), new PrintWriter(e, true));
    assertEquals(2, code, e.toString());
    List<String> lines = e.toString().lines().toList();
    assertEquals(1, lines.size(), e.toString());
    assertTrue(lines.get(0).startsWith("bitopk: ") && lines.get(0).contains(flag.substring(0, flag.indexOf('='))),
        lines.get(0));
    assertFalse(Files.exists(tmp.resolve("bad")));
  }

  /** The job's tests run without job/dl4j-baselines on the class path, as a Spark 4 build is: no DL4J masters. */
  @ParameterizedTest
  @ValueSource(strings = {"patm-5", "shared"})
  void aDl4jMasterOnABuildWithoutThemIsOneLineSayingWhichBuildHasThemAndExitCode2(String system) {
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", tmp.resolve("dl4j").toString(),
        "--systems", "bitopk-dense," + system}, SPARK.context(), new PrintWriter(new StringWriter(), true),
        new PrintWriter(e, true));
    assertEquals(2, code, e.toString());
    assertEquals(List.of("bitopk: --systems: '" + system + "' is one of DL4J's Spark masters, which only "
        + SystemFamilies.DL4J_MASTERS_BUILD + " has; this build is for Spark "
        + org.apache.spark.package$.MODULE$.SPARK_VERSION() + " (Scala " + scala.util.Properties.versionNumberString()
        + ") (see --help)"), e.toString().lines().toList());
    assertFalse(Files.exists(tmp.resolve("dl4j")));
    assertEquals(List.of("bitopk-bidirectional", "bitopk-unidirectional", "bitopk-dense", "single-jvm"),
        TimeToAccuracyCommand.DEFAULT_SYSTEMS, "the defaults are this build's systems");
  }

  @Test
  void aNonEmptyOutputDirectoryIsRefusedWithoutOverwrite() {
    StringWriter e = new StringWriter();
    int code = Main.execute(new String[] {"time-to-accuracy", "--out", out.toString(), "--dataset", "synthetic"},
        SPARK.context(), new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
    assertEquals(2, code);
    assertTrue(e.toString().contains("--out") && e.toString().contains("--overwrite"), e.toString());
    assertTrue(Arrays.asList(out.toFile().list()).contains("_SUCCESS"));
  }
}
