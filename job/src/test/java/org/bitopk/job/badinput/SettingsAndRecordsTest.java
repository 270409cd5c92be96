package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.run.TrainingRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the job prints and records about its settings: --version from the build; settings that do not apply
 * are refused, not ignored; unset values in config files and empty flags are refused; config.json after a
 * resume holds the settings the run finished with; a resume over lost metric lines says so; the summary and
 * config.json say how many examples were read and how they were split.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SettingsAndRecordsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  JavaSparkContext sc;
  @TempDir
  Path tmp;

  @BeforeAll
  void start() {
    sc = SPARK.context();
  }


  @ParameterizedTest
  @ValueSource(strings = {"--version", "-V", "train --version", "report --version"})
  void versionComesFromTheBuild(String args) {
    String expected = System.getProperty("bitopk.expected.version");
    assertNotNull(expected, "surefire passes the POM's version");
    Cli.Outcome o = Cli.run(sc, args.split(" ")).succeeds();
    assertEquals("bitopk " + expected, o.out().lines().findFirst().orElse(""), o.out());
    String spark = "Spark " + System.getProperty("bitopk.expected.spark") + " (Scala "
        + System.getProperty("bitopk.expected.scala") + ")";
    assertTrue(o.out().contains(spark) && o.out().contains("Java " + Runtime.version().feature()), o.out());
    assertEquals("", o.err());
  }

  static Stream<Arguments> settingsThatDoNotApply() {
    return Stream.of(
        Arguments.of(List.of("--dataset", "counterexample", "--model", "mlp"), "--model mlp", "counterexample"),
        Arguments.of(List.of("--dataset", "counterexample", "--batch-size", "16"), "--batch-size 16", "counterexample"),
        Arguments.of(List.of("--dataset", "counterexample", "--split", "non-iid"), "--split non-iid", "counterexample"),
        Arguments.of(List.of("--dataset", "counterexample", "--data", "/data"), "--data /data", "counterexample"),
        Arguments.of(List.of("--dataset", "synthetic", "--data", "/data"), "--data /data", "synthetic"),
        Arguments.of(List.of("--mode", "dense", "--uplink", "topk"), "--uplink topk", "--mode dense"),
        Arguments.of(List.of("--mode", "dense", "--downlink", "gaussiank"), "--downlink gaussiank", "--mode dense"),
        // the default value, given explicitly, is refused too: the user expects it to do something
        Arguments.of(List.of("--mode", "dense", "--density-up", "0.01"), "--density-up 0.01", "--mode dense"),
        Arguments.of(List.of("--mode", "dense", "--density-down", "0.5"), "--density-down 0.5", "--mode dense"),
        Arguments.of(List.of("--mode", "dense", "--k-rounding", "floor"), "--k-rounding floor", "--mode dense"),
        Arguments.of(List.of("--mode", "unidirectional", "--downlink", "topk"), "--downlink topk",
            "--mode unidirectional"),
        Arguments.of(List.of("--mode", "unidirectional", "--density-down", "0.1"), "--density-down 0.1",
            "--mode unidirectional"),
        Arguments.of(List.of("--resume", "/somewhere", "--overwrite"), "--overwrite", "--resume"));
  }

  @ParameterizedTest(name = "{1} with {2}")
  @MethodSource("settingsThatDoNotApply")
  void settingsThatDoNotApplyAreRefusedNamingBothFlags(List<String> args, String setting, String context) {
    Path out = tmp.resolve("never");
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--output", out.toString(), "--quiet"));
    if (args.contains("--resume")) {
      all.subList(all.size() - 3, all.size() - 1).clear();   // --resume names the directory itself
      all.set(all.indexOf("/somewhere"), crashed("to-resume", 20, 12).toString());
    }
    Cli.run(sc, all).failsWithOneLine(2, setting, context);
    assertFalse(Files.exists(out));
  }

  /** Narrower value formats are recorded in config.json, and the run's own config reruns it with them. */
  @Test
  void valueFormatsAreRecordedAndARunsOwnConfigRerunsThem() throws IOException {
    Path rounded = tmp.resolve("rounded-values");
    Cli.run(sc, "--dataset", "synthetic:n=96,test=24", "--model", "mlp-small", "--workers", "2", "--batch-size",
        "16", "--values-up", "fp16", "--values-down", "int8", "--output", rounded.toString(), "--quiet").succeeds();
    JsonNode config = JSON.readTree(rounded.resolve("config.json").toFile());
    assertEquals("fp16", config.get("values-up").asText());
    assertEquals("int8", config.get("values-down").asText());
    Path again = tmp.resolve("rounded-values-again");
    Cli.run(sc, "--config", rounded.resolve("config.json").toString(), "--output", again.toString(), "--quiet")
        .succeeds();
    JsonNode rerun = JSON.readTree(again.resolve("config.json").toFile());
    assertEquals("fp16", rerun.get("values-up").asText());
    assertEquals("int8", rerun.get("values-down").asText());
  }

  @Test
  void whatAModeImpliesMayBeStatedAndARunsOwnConfigRerunsIt() throws IOException {
    Path dense = tmp.resolve("dense");
    Cli.run(sc, "--dataset", "synthetic:n=96,test=24", "--model", "mlp-small", "--workers", "2", "--batch-size",
        "16", "--mode", "dense", "--uplink", "none", "--density-up", "1", "--output", dense.toString(), "--quiet")
        .succeeds();
    JsonNode config = JSON.readTree(dense.resolve("config.json").toFile());
    assertEquals("none", config.get("uplink").asText());
    assertFalse(config.has("master") || config.has("data"), "no unset (null) values: " + config);
    assertFalse(config.has("k-rounding"), "no k in dense mode: " + config);
    assertFalse(config.has("values-up") || config.has("values-down"), "fp32 values are not recorded: " + config);
    Cli.run(sc, "--config", dense.resolve("config.json").toString(), "--output", tmp.resolve("dense-again")
        .toString()).succeeds();

    // a config file that sets a compressor for a dense run is refused, naming the file
    Path file = tmp.resolve("dense.properties");
    Files.writeString(file, "mode=dense\nuplink=topk\ndataset=counterexample\n");
    Cli.run(sc, "--config", file.toString(), "--output", tmp.resolve("x").toString())
        .failsWithOneLine(2, "--uplink topk (from " + file, "--mode dense");

    Path counterexample = tmp.resolve("ce");
    Cli.run(sc, "--dataset", "counterexample", "--epochs", "3", "--output", counterexample.toString(), "--quiet")
        .succeeds();
    JsonNode ce = JSON.readTree(counterexample.resolve("config.json").toFile());
    for (String absent : List.of("model", "split", "batch-size", "data")) {
      assertFalse(ce.has(absent), absent + " does not apply to the counterexample: " + ce);
    }
    Cli.run(sc, "--config", counterexample.resolve("config.json").toString(), "--output",
        tmp.resolve("ce-again").toString()).succeeds();
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"workers\": null}", "{\"lr\": \"\"}", "{\"dataset\": \"  \"}", "workers=\n"})
  void unsetValuesInAConfigFileAreRefused(String content) throws IOException {
    Path file = tmp.resolve(content.startsWith("{") ? "unset.json" : "unset.properties");
    Files.writeString(file, content);
    String key = content.replaceAll("^\\{\"([a-z]+)\".*$|^([a-z]+)=\\s*$", "$1$2").strip();
    Cli.run(sc, "--config", file.toString(), "--output", tmp.resolve("never").toString())
        .failsWithOneLine(2, "--config", "'" + key + "'", file.toString(), "leave the key out");
  }

  @ParameterizedTest
  @ValueSource(strings = {"--output", "--data", "--master", "--resume"})
  void anEmptyValueIsRefused(String flag) {
    Cli.run(sc, "--dataset", "mnist", flag, "").failsWithOneLine(2, flag);
    assertFalse(Files.exists(Path.of("runs")) && Files.exists(Path.of("runs", "x")), "no default directory");
  }

  @Test
  void configJsonAfterAResumeHoldsTheSettingsTheRunFinishedWith() throws IOException {
    Path run = crashed("extended", 60, 25);
    Cli.run(sc, "--resume", run.toString(), "--max-iterations", "40", "--quiet").succeeds();
    JsonNode config = JSON.readTree(run.resolve("config.json").toFile());
    assertEquals(40, config.get("max-iterations").asInt());
    assertEquals(40, config.get("resolved").get("total_iterations").asInt());
    assertEquals(20, config.get("resolved").get("resumed").get(0).get("from_iteration").asInt());
    assertEquals(40, Files.readAllLines(run.resolve("metrics/iterations.jsonl")).size());

    // rerunning it with its config.json trains the same run: the same rounds, the same result
    Path again = tmp.resolve("extended-again");
    Cli.run(sc, "--config", run.resolve("config.json").toString(), "--output", again.toString(), "--quiet")
        .succeeds();
    assertEquals(40, Files.readAllLines(again.resolve("metrics/iterations.jsonl")).size());
    assertEquals(JSON.readTree(run.resolve("model.json").toFile()).get("objective"),
        JSON.readTree(again.resolve("model.json").toFile()).get("objective"));
  }

  @Test
  void aResumeOverLostMetricLinesSaysSoAndRecordsTheGap() throws IOException {
    Path run = crashed("gap", 40, 35);   // checkpoints at 10, 20, 30
    Path iterations = run.resolve("metrics/iterations.jsonl");
    List<String> lines = Files.readAllLines(iterations);
    List<String> kept = new ArrayList<>(lines.subList(0, 5));
    kept.addAll(lines.subList(10, lines.size()));
    Files.write(iterations, kept);

    Cli.Outcome resumed = Cli.run(sc, "--resume", run.toString(), "--quiet").succeeds();
    assertEquals(1, resumed.errLines().size(), resumed.err());
    assertTrue(resumed.err().startsWith("bitopk: warning: ") && resumed.err().contains("iterations.jsonl lacks the "
        + "lines of iteration(s) 5-9 (of 0-29 before the checkpoint)"), resumed.err());
    JsonNode config = JSON.readTree(run.resolve("config.json").toFile());
    assertEquals("[\"5-9\"]", config.get("resolved").get("missing_iteration_lines").toString());
    String summary = Files.readString(run.resolve("summary.txt"));
    assertTrue(summary.contains("metric gaps") && summary.contains("no lines for iteration(s) 5-9"), summary);
    assertEquals(35, Files.readAllLines(iterations).size(), "40 rounds less the 5 lost ones");
  }

  @Test
  void summaryAndConfigSayHowManyExamplesWereReadAndHowTheyWereSplit() throws IOException {
    int n = 203;
    int test = 51;
    int workers = 3;
    Path run = tmp.resolve("counts");
    Cli.Outcome o = Cli.run(sc, "--dataset", "synthetic:n=" + n + ",test=" + test, "--model", "mlp-small",
        "--workers", Integer.toString(workers), "--split", "non-iid", "--batch-size", "16", "--output",
        run.toString(), "--quiet").succeeds();
    int shard = 2 * (n / (2 * workers));   // 2P label-sorted shards of floor(n/2P), two per worker
    JsonNode resolved = JSON.readTree(run.resolve("config.json").toFile()).get("resolved");
    assertEquals(n, resolved.get("train_examples").asInt());
    assertEquals(test, resolved.get("test_examples").asInt());
    assertEquals("[" + shard + "," + shard + "," + shard + "]", resolved.get("shard_sizes").toString());
    assertEquals(shard / 16, resolved.get("iterations_per_epoch").asInt());
    String line = "203 train, 51 test examples; worker shards of " + shard + " each (" + 3 * shard + " used)";
    assertTrue(o.out().contains(line), o.out());
    assertTrue(Files.readString(run.resolve("summary.txt")).contains(line));
  }

  /** A counterexample run with checkpoints every 10 rounds that dies after {@code rounds}. */
  /**
   * A config.json edited by hand no longer matches the checksum file Hadoop wrote beside it; the settings file is
   * still read (as a --config file and for --resume), and the run resumes and finishes.
   */
  @Test
  void aHandEditedConfigJsonStillResumes() throws IOException {
    Path run = crashed("hand-edited", 60, 25);
    Path config = run.resolve("config.json");
    Files.writeString(config, Files.readString(config) + "\n");
    assertTrue(Files.exists(run.resolve(".config.json.crc")), "the checksum the edit made stale");
    Cli.run(sc, "--resume", run.toString(), "--max-iterations", "40", "--quiet").succeeds();
    assertTrue(Files.exists(run.resolve("_SUCCESS")));
    assertEquals(40, Files.readAllLines(run.resolve("metrics/iterations.jsonl")).size());
  }

  Path crashed(String name, int epochs, int rounds) {
    Path out = tmp.resolve(name);
    TrainingConfig config = TrainingConfig.builder().dataset("counterexample").epochs(epochs).checkpointEvery(10)
        .output(out.toString()).quiet(true).build();
    org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> TrainingRun.execute(sc, config, false, List.of(OutputOwnershipTest.crashAt(rounds))));
    return out;
  }
}
