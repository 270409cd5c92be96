package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input end to end through the command line ({@link Main#execute}, local[2]): each case gets one line
 * on stderr naming what is wrong, exit code 2 whatever the kind of input, and no debris: the output
 * directory is not even created (the data, the model's fit, the workers and the batch size are checked
 * before Spark starts). The {@code report} command refuses unfinished runs unless asked and rejects
 * malformed metric values.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  @TempDir
  static Path tmp;

  record Outcome(int code, String out, String err) {}

  Outcome main(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), SPARK.context(), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  static Path corruptIdx() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("corrupt-mnist"));
    for (String name : List.of("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")) {
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(dir.resolve(name)))) {
        out.write(new byte[] {0, 0, 8, 3, 0, 0, 0, 5});   // magic 2051 but the header stops short
      }
    }
    return dir;
  }

  static Stream<Arguments> badInputs() throws IOException {
    return Stream.of(
        Arguments.of("missing data path", List.of("--dataset", "mnist", "--data", tmp.resolve("no-such-dir").toString()),
            "no-such-dir"),
        Arguments.of("corrupt IDX", List.of("--dataset", "mnist", "--data", corruptIdx().toString()),
            "train-images-idx3-ubyte"),
        Arguments.of("unknown model", List.of("--model", "resnet"), "--model"),
        Arguments.of("unknown compressor", List.of("--uplink", "zipk"), "--uplink"),
        Arguments.of("unknown downlink compressor", List.of("--downlink", "sidco-x"), "--downlink"),
        Arguments.of("unknown randomk option", List.of("--uplink", "randomk:fast"),
            "expected 'randomk' or 'randomk:scaled'"),
        Arguments.of("natural with an option", List.of("--downlink", "natural:bits=4"), "'natural' takes no options"),
        Arguments.of("density 0", List.of("--density-up", "0"), "--density-up"),
        Arguments.of("density above 1", List.of("--density-down", "1.5"), "--density-down"),
        Arguments.of("more workers than examples",
            List.of("--dataset", "synthetic:n=12,test=10", "--model", "mlp-small", "--workers", "16"), "16"),
        Arguments.of("batch larger than a shard",
            List.of("--dataset", "synthetic:n=64,test=10", "--model", "mlp-small", "--workers", "2",
                "--batch-size", "64"), "--batch-size"),
        Arguments.of("bad synthetic option", List.of("--dataset", "synthetic:n=abc", "--model", "mlp-small"),
            "synthetic:n=abc"),
        Arguments.of("non-iid needs two examples per worker",
            List.of("--dataset", "synthetic:n=10,test=10", "--model", "mlp-small", "--workers", "6", "--split",
                "non-iid", "--batch-size", "1"), "--workers 6"),
        Arguments.of("unknown uplink feedback", List.of("--uplink-feedback", "ef99"), "--uplink-feedback"),
        Arguments.of("ef21 in dense mode", List.of("--mode", "dense", "--uplink-feedback", "ef21"),
            "--uplink-feedback"),
        Arguments.of("ef21 with momentum", List.of("--uplink-feedback", "ef21", "--momentum", "0.9"), "--momentum"),
        Arguments.of("ef21-p in unidirectional mode", List.of("--mode", "unidirectional", "--downlink-scheme",
            "ef21-p"), "--downlink-scheme"),
        Arguments.of("mcm with a biased downlink and no rate", List.of("--downlink-scheme", "mcm"),
            "--down-memory-rate: required with --downlink-scheme mcm and --downlink topk"),
        Arguments.of("artemis with a biased uplink and no rate", List.of("--uplink-feedback", "artemis"),
            "--up-memory-rate: required with --uplink-feedback artemis"),
        Arguments.of("up-memory-rate without artemis", List.of("--uplink-feedback", "ef21", "--up-memory-rate",
            "0.5"), "--up-memory-rate"),
        Arguments.of("down-memory-rate without mcm", List.of("--down-memory-rate", "0.5"), "--down-memory-rate"),
        Arguments.of("memory rate above 1", List.of("--downlink-scheme", "mcm", "--down-memory-rate", "1.5"),
            "--down-memory-rate: expected a rate in (0, 1]"),
        Arguments.of("mcm in unidirectional mode", List.of("--mode", "unidirectional", "--downlink-scheme", "mcm"),
            "--downlink-scheme"),
        Arguments.of("artemis with momentum", List.of("--uplink-feedback", "artemis", "--up-memory-rate", "0.5",
            "--momentum", "0.9"), "--momentum"),
        Arguments.of("unknown value format", List.of("--values-up", "fp8"),
            "unknown value format 'fp8'; expected fp32, fp16, bf16 or int8"),
        Arguments.of("rounded uplink values with ef21", List.of("--uplink-feedback", "ef21", "--values-up", "fp16"),
            "--values-up fp16: rounds what error feedback sends (the residual keeps the rest); applies to sparse "
                + "uplinks with --uplink-feedback ef14 or none, got --uplink-feedback ef21"),
        Arguments.of("rounded uplink values in dense mode", List.of("--mode", "dense", "--values-up", "int8"),
            "--values-up int8: rounds what error feedback sends"),
        Arguments.of("rounded downlink values with ef21-p", List.of("--downlink-scheme", "ef21-p", "--values-down",
            "bf16"), "--values-down bf16: rounds what the server's error feedback sends; applies to "
                + "--downlink-scheme ef (bidirectional) only, got --downlink-scheme ef21-p"),
        Arguments.of("rounded downlink values with mcm", List.of("--downlink-scheme", "mcm", "--down-memory-rate",
            "0.5", "--values-down", "int8"), "--values-down int8"),
        Arguments.of("rounded downlink values in unidirectional mode", List.of("--mode", "unidirectional",
            "--values-down", "fp16"), "--values-down fp16"),
        Arguments.of("data is a file", List.of("--dataset", "mnist", "--data", aFile().toString()),
            "is a file, not a directory"));
  }

  static Path aFile() throws IOException {
    Path file = tmp.resolve("train-images-idx3-ubyte");
    if (!Files.exists(file)) {
      Files.writeString(file, "not a directory");
    }
    return file;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void oneClearLineNonZeroExitNoResult(String name, List<String> args, String named) {
    Path out = tmp.resolve(name.replace(' ', '-'));
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--output", out.toString(), "--epochs", "1", "--max-iterations", "2", "--quiet"));
    Outcome o = main(all);
    assertEquals(2, o.code(), name + ": bad input is exit code 2: " + o.err());
    assertEquals(1, o.err().lines().count(), name + ": one line, got:\n" + o.err());
    assertTrue(o.err().startsWith("bitopk: "), o.err());
    assertTrue(o.err().contains(named), name + ": the message must name " + named + ": " + o.err());
    assertFalse(Files.exists(out), name + ": nothing is created, not even the output directory");
    assertEquals("", o.out(), "nothing on stdout that could be taken for a summary");
  }

  @Test
  void reportDrawsOnlyFinishedRunsUnlessToldAndRejectsMalformedValues() throws IOException {
    Path run = tmp.resolve("for-report");
    assertEquals(0, main(List.of("--dataset", "counterexample", "--epochs", "5", "--output", run.toString(),
        "--quiet")).code());
    Files.delete(run.resolve("_SUCCESS"));
    Path png = tmp.resolve("compare.png");
    Outcome unfinished = main(List.of("report", "--runs", run.toString(), "--out", png.toString()));
    assertEquals(2, unfinished.code());
    assertEquals(1, unfinished.err().lines().count(), unfinished.err());
    assertTrue(unfinished.err().startsWith("bitopk: ") && unfinished.err().contains("no finished run")
        && unfinished.err().contains("--partial"), unfinished.err());
    assertFalse(Files.exists(png));
    assertEquals(0, main(List.of("report", "--runs", run.toString(), "--out", png.toString(), "--partial")).code());
    assertTrue(Files.size(png) > 1000);

    List<String> lines = new ArrayList<>(Files.readAllLines(run.resolve("metrics/iterations.jsonl")));
    lines.set(2, lines.get(2).replaceFirst("\"loss\":[^,]*", "\"loss\":\"abc\""));
    Files.write(run.resolve("metrics/iterations.jsonl"), lines);
    Outcome malformed = main(List.of("report", "--runs", run.toString(), "--partial"));
    assertEquals(2, malformed.code());
    assertEquals(1, malformed.err().lines().count(), malformed.err());
    assertTrue(malformed.err().contains("iterations.jsonl line 3") && malformed.err().contains("'loss'")
        && malformed.err().contains("expected a number"), malformed.err());

    // what a run that failed at once used to leave behind: nothing to draw, even with --partial
    Path debris = Files.createDirectories(tmp.resolve("debris/metrics"));
    Files.writeString(debris.resolveSibling("config.json"), "{}");
    Files.createFile(debris.resolve("iterations.jsonl"));
    Files.createFile(debris.resolve("epochs.jsonl"));
    Outcome empty = main(List.of("report", "--runs", debris.getParent().toString(), "--partial"));
    assertEquals(2, empty.code());
    assertTrue(empty.err().contains("no metric lines yet") && empty.err().lines().count() == 1, empty.err());
    assertFalse(Files.exists(debris.resolveSibling("report.png")), "no chart of nothing");
  }

  /** A run killed while writing a metric line leaves it torn; --partial draws the lines before it. */
  @Test
  void reportPartialLeavesOutAKilledRunsTornLastLine() throws IOException {
    Path run = tmp.resolve("torn");
    assertEquals(0, main(List.of("--dataset", "counterexample", "--epochs", "3", "--output", run.toString(),
        "--quiet")).code());
    Path iterations = run.resolve("metrics/iterations.jsonl");
    List<String> whole = Files.readAllLines(iterations);
    String last = whole.get(whole.size() - 1);
    String torn = String.join("\n", whole.subList(0, whole.size() - 1)) + "\n" + last.substring(0, last.length() / 2);
    Files.writeString(iterations, torn);

    Outcome finished = main(List.of("report", "--runs", run.toString()));
    assertEquals(2, finished.code(), "a finished run has no torn line: " + finished.err());
    assertTrue(finished.err().contains("iterations.jsonl line " + whole.size()), finished.err());

    Files.delete(run.resolve("_SUCCESS"));
    Outcome killed = main(List.of("report", "--runs", run.toString(), "--partial"));
    assertEquals(0, killed.code(), killed.err());
    assertEquals("", killed.err());
    String html = Files.readString(run.resolve("report.html"));
    assertTrue(html.contains(", " + (whole.size() - 1) + " iterations, "), "the lines before the torn one");

    Files.writeString(iterations, torn + "\n");   // ended by a line end: not a torn write but a damaged line
    assertEquals(2, main(List.of("report", "--runs", run.toString(), "--partial")).code());
  }

  /**
   * Text that is not JSON, in a --config file (a trailing comma) or in a metrics file given to report (binary
   * garbage), is one line naming the file and where, without Jackson's source dump or the file's raw bytes.
   */
  @Test
  void jsonThatIsNotJsonIsOneLineWithoutTheSourceOrItsBytes() throws IOException {
    Path config = Files.writeString(tmp.resolve("trailing-comma.json"), "{\"dataset\": \"counterexample\",}\n");
    Path out = tmp.resolve("trailing-comma-run");
    Outcome comma = main(List.of("--config", config.toString(), "--output", out.toString(), "--quiet"));
    assertEquals(2, comma.code(), comma.err());
    assertEquals(1, comma.err().lines().count(), comma.err());
    assertTrue(comma.err().startsWith("bitopk: --config: " + config + " is not JSON: ")
        && comma.err().contains("(line 1, column "), comma.err());
    assertFalse(comma.err().contains("[Source"), comma.err());
    assertFalse(Files.exists(out), "nothing created");

    Path run = tmp.resolve("garbage-metrics");
    assertEquals(0, main(List.of("--dataset", "counterexample", "--epochs", "3", "--output", run.toString(),
        "--quiet")).code());
    Path iterations = run.resolve("metrics/iterations.jsonl");
    byte[] garbage = {'g', 'a', 'r', 'b', 0, 1, 2, 27, '[', '3', '1', 'm', (byte) 0xff, (byte) 0xfe, '\n'};
    Files.write(iterations, garbage);
    byte[] png = Files.readAllBytes(run.resolve("report.png"));
    byte[] html = Files.readAllBytes(run.resolve("report.html"));
    Outcome report = main(List.of("report", "--runs", run.toString()));
    assertEquals(2, report.code(), report.err());
    assertEquals(1, report.err().lines().count(), report.err());
    assertTrue(report.err().startsWith("bitopk: ") && report.err().contains("iterations.jsonl line 1 is not valid "
        + "JSON: "), report.err());
    assertTrue(report.err().chars().allMatch(c -> c == '\n' || (c >= 0x20 && c < 0x7f)),
        "printable ASCII only: " + report.err());
    assertFalse(report.err().contains("[Source"), report.err());
    assertTrue(java.util.Arrays.equals(png, Files.readAllBytes(run.resolve("report.png")))
        && java.util.Arrays.equals(html, Files.readAllBytes(run.resolve("report.html"))),
        "the run's report is left as it was, not redrawn from a file that is not one");
  }

  /** report reads a config.json edited by hand, whose checksum file Hadoop wrote beside it is stale. */
  @Test
  void reportDrawsARunWhoseConfigJsonWasEdited() throws IOException {
    Path run = tmp.resolve("edited-config");
    assertEquals(0, main(List.of("--dataset", "counterexample", "--epochs", "3", "--output", run.toString(),
        "--quiet")).code());
    Path config = run.resolve("config.json");
    Files.writeString(config, Files.readString(config) + "\n");
    assertTrue(Files.exists(run.resolve(".config.json.crc")), "the checksum the edit made stale");
    Path png = tmp.resolve("edited-config.png");
    Outcome report = main(List.of("report", "--runs", run.toString(), "--out", png.toString()));
    assertEquals(0, report.code(), report.err());
    assertTrue(Files.size(png) > 1000);
  }

  @Test
  void aFinishedRunIsNotOverwrittenUnlessAsked() throws IOException {
    Path out = tmp.resolve("finished");
    List<String> args = List.of("--dataset", "counterexample", "--epochs", "3", "--output", out.toString(), "--quiet");
    assertEquals(0, main(args).code());
    byte[] model = Files.readAllBytes(out.resolve("model.json"));

    Outcome again = main(args);
    assertEquals(2, again.code());
    assertEquals(1, again.err().lines().count(), again.err());
    assertTrue(again.err().contains("already holds a finished run") && again.err().contains("--overwrite"),
        again.err());
    assertTrue(java.util.Arrays.equals(model, Files.readAllBytes(out.resolve("model.json"))), "left untouched");

    List<String> overwrite = new ArrayList<>(args);
    overwrite.add("--overwrite");
    Outcome replaced = main(overwrite);
    assertEquals(0, replaced.code(), replaced.err());
    assertTrue(Files.exists(out.resolve("_SUCCESS")));
  }
}
