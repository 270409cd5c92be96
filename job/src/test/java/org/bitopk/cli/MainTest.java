package org.bitopk.cli;

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
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The command line through {@link Main#execute}: exit codes, messages, --help, --config, output guard. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MainTest {
  /** The flags the job promises (README / task): --help must explain each. */
  private static final String[] FLAGS = {"--master", "--dataset", "--data", "--model", "--mode", "--workers",
      "--uplink", "--downlink", "--density-up", "--density-down", "--lr", "--batch-size", "--epochs",
      "--max-iterations", "--split", "--seed", "--output", "--overwrite", "--config", "--eval-every",
      "--consistency-check-every", "--snapshot-every", "--update-window", "--xi", "--quiet", "--lr-decay",
      "--momentum", "--verbose", "--resume", "--checkpoint-every", "--data-format", "--table", "--features",
      "--label", "--input-shape", "--test-data", "--test-fraction", "--normalize", "--feature-scale"};

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @TempDir
  Path tmp;

  private record Outcome(int code, String out, String err) {}

  private Outcome run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, SPARK.context(), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  @Test
  void helpExplainsEveryFlag() {
    for (String[] args : new String[][] {{"--help"}, {"train", "--help"}}) {
      Outcome o = run(args);
      assertEquals(0, o.code());
      for (String flag : FLAGS) {
        assertTrue(o.out().contains(flag), "--help does not mention " + flag);
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
      "--workers, 0, --workers",
      "--workers, many, --workers",
      "--mode, sideways, --mode",
      "--uplink, zipk, --uplink",
      "--downlink, topk:k=3, --downlink",
      "--density-up, 1.5, --density-up",
      "--density-down, 0, --density-down",
      "--lr, -1, --lr",
      "--batch-size, abc, --batch-size",
      "--split, random, --split",
      "--model, resnet, --model",
      "--dataset, imagenet, --dataset",
      "--snapshot-every, 64, --snapshot-every",
      "--momentum, 1, --momentum",
      "--bogus, 1, --bogus"})
  void badFlagsGiveOneLineNamingTheFlagAndExitTwo(String flag, String value, String named) {
    Outcome o = run(flag, value, "--output", tmp.resolve("never").toString());
    assertEquals(2, o.code(), o.err());
    assertEquals(1, o.err().lines().count(), "one line expected, got: " + o.err());
    assertTrue(o.err().contains(named), o.err());
    assertFalse(Files.exists(tmp.resolve("never")), "nothing may be written for a bad command line");
  }

  @Test
  void unknownConfigKeyIsRejected() throws IOException {
    Path config = tmp.resolve("bad.properties");
    Files.writeString(config, "lr=0.1\nlearning-rate=0.2\n");
    Outcome o = run("--config", config.toString());
    assertEquals(2, o.code());
    assertTrue(o.err().contains("learning-rate"), o.err());
  }

  @Test
  void configFileFlagsOverrideAndFinishedRunsAreProtected() throws IOException {
    Path config = tmp.resolve("ce.properties");
    Files.writeString(config, "dataset=counterexample\nepochs=40\nlr=0.02\nseed=7\nquiet=true\n");
    String output = tmp.resolve("run1").toString();
    Outcome first = run("--config", config.toString(), "--lr", "0.01", "--output", output);
    assertEquals(0, first.code(), first.err());
    assertTrue(first.out().contains("F - F*"), first.out());
    JsonNode written = new ObjectMapper().readTree(Path.of(output, "config.json").toFile());
    assertEquals(0.01, written.get("lr").asDouble());
    assertEquals(40, written.get("epochs").asInt());
    assertEquals(7, written.get("seed").asLong());
    assertTrue(Files.exists(Path.of(output, "model.json")));
    assertTrue(Files.exists(Path.of(output, "_SUCCESS")));

    Outcome again = run("--config", config.toString(), "--output", output);
    assertEquals(2, again.code());
    assertTrue(again.err().contains("--output") && again.err().contains("_SUCCESS"), again.err());

    // A run's own config.json reruns it: same settings, same trajectory.
    String rerun = tmp.resolve("run2").toString();
    Outcome replay = run("--config", Path.of(output, "config.json").toString(), "--output", rerun, "--quiet");
    assertEquals(0, replay.code(), replay.err());
    assertEquals(Files.readAllLines(Path.of(output, "metrics/epochs.jsonl")).size(),
        Files.readAllLines(Path.of(rerun, "metrics/epochs.jsonl")).size());
    JsonNode last1 = lastLine(Path.of(output, "metrics/iterations.jsonl"));
    JsonNode last2 = lastLine(Path.of(rerun, "metrics/iterations.jsonl"));
    assertEquals(last1.get("optimality_gap").asDouble(), last2.get("optimality_gap").asDouble(), 0.0);

    Outcome overwrite = run("--config", config.toString(), "--output", output, "--overwrite");
    assertEquals(0, overwrite.code(), overwrite.err());
  }

  private static JsonNode lastLine(Path file) throws IOException {
    var lines = Files.readAllLines(file);
    return new ObjectMapper().readTree(lines.get(lines.size() - 1));
  }
}
