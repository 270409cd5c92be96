package org.bitopk.job.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.cli.Main;
import org.bitopk.job.SparkTestContext;
import org.bitopk.job.checkpoint.MetricLines;
import org.bitopk.job.spark.SparkSetup;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit/yarn.sh} against a real YARN ({@link YarnCluster}): the job runs in cluster deploy mode (the
 * driver inside the ApplicationMaster container, two executor containers), YARN reports the application
 * SUCCEEDED, and the run's metrics and model equal, bit for bit, the same run on local[2]. Its executors start with
 * the job's warm-up agent ({@code --warm-executors}): the application jar YARN localized in their containers.
 */
@Tag("spark-api")
class YarnSubmitTest {
  static final Path SUBMIT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent()
      .resolve("submit");
  static final List<String> JOB = List.of("train", "--dataset", "synthetic:n=512,test=64", "--workers", "2",
      "--batch-size", "16", "--max-iterations", "6", "--seed", "3", "--consistency-check-every", "1", "--quiet");
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void yarnShRunsTheJobInClusterModeLikeLocal(@TempDir Path tmp) throws Exception {
    assumeTrue(YarnCluster.hostNameIsLoopback(), "YARN advertises its services by host name, which must resolve "
        + "to loopback here");
    Path onYarn = tmp.resolve("on-yarn");
    Path log = tmp.resolve("submit.log");
    try (YarnCluster yarn = YarnCluster.start(tmp.resolve("yarn"))) {
      List<String> command = new ArrayList<>(List.of("/bin/bash", SUBMIT.resolve("yarn.sh").toString(),
          "--executors", "2", "--executor-cores", "1", "--executor-memory", "768m", "--driver-memory", "768m",
          "--jar", yarn.applicationJar().toString(), "--insecure", "--warm-executors"));
      yarn.sparkConf().forEach((k, v) -> command.addAll(List.of("--conf", k + "=" + v)));
      command.add("--");
      command.addAll(JOB);
      command.addAll(List.of("--output", onYarn.toUri().toString()));
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      builder.environment().clear();
      builder.environment().putAll(yarn.environment());
      Process submit = builder.start();
      int exit = StandaloneCluster.await(submit, Duration.ofMinutes(5), log);
      assertEquals(0, exit, () -> "spark-submit failed:\n" + StandaloneCluster.tail(log, 60) + "\n"
          + yarn.containerLogs(40));
      assertEquals(List.of("SUCCEEDED"), yarn.finalStatuses(), () -> yarn.containerLogs(40));
      String logs = yarn.containerLogs(Integer.MAX_VALUE);   // whole: the agent's line is among the first
      assertEquals(2, logs.split("ExecutorWarmUpAgent: the executor's JVM warmed up in ", -1).length - 1,
          () -> "each executor's agent warms its JVM up:\n" + logs);
    }
    assertTrue(Files.exists(onYarn.resolve("_SUCCESS")));
    JsonNode config = JSON.readTree(onYarn.resolve("config.json").toFile());
    assertEquals("yarn", config.at("/resolved/spark_master").asText(), config.at("/resolved").toString());

    Path local = tmp.resolve("local");
    JavaSparkContext sc = SparkSetup.start(SparkTestContext.conf());
    try {
      List<String> args = new ArrayList<>(JOB);
      args.addAll(List.of("--output", local.toString()));
      StringWriter err = new StringWriter();
      int code = Main.execute(args.toArray(String[]::new), sc, new PrintWriter(new StringWriter(), true),
          new PrintWriter(err, true));
      assertEquals(0, code, err.toString());
    } finally {
      sc.stop();
    }
    List<Map<String, JsonNode>> expected = metricLines(local);
    assertEquals(6, expected.size());
    List<Map<String, JsonNode>> actual = metricLines(onYarn);
    assertEquals(expected.size(), actual.size(), "iterations.jsonl on YARN vs local[2]");
    for (int i = 0; i < expected.size(); i++) {
      assertSameRound(expected.get(i), actual.get(i), i);
    }
    float[] localModel =
        ModelSerializer.restoreMultiLayerNetwork(local.resolve("model.zip").toFile(), false).params().toFloatVector();
    float[] yarnModel =
        ModelSerializer.restoreMultiLayerNetwork(onYarn.resolve("model.zip").toFile(), false).params().toFloatVector();
    assertEquals(localModel.length, yarnModel.length);
    for (int j = 0; j < localModel.length; j++) {
      assertEquals(localModel[j], yarnModel[j], 1e-5f * Math.max(1f, Math.abs(localModel[j])),
          "final model on YARN vs local[2], parameter " + j);
    }
  }

  /**
   * One round's metric line: every count (bytes, nnz, k, workers, tasks, lost or rolled-back states) exactly; the
   * floating-point figures (loss, δ) to 1e-6 relative. On some CPUs the containers' ND4J rounds the forward pass
   * differently in the last float bit from the same computation in the test's JVM, so a bit-for-bit comparison
   * tests the machine, not the job; the selections (nnz, bytes) must still agree exactly.
   */
  static void assertSameRound(Map<String, JsonNode> local, Map<String, JsonNode> yarn, int round) {
    assertEquals(local.keySet(), yarn.keySet(), "fields of round " + round);
    for (Map.Entry<String, JsonNode> e : local.entrySet()) {
      JsonNode a = e.getValue();
      JsonNode b = yarn.get(e.getKey());
      String what = "round " + round + " field " + e.getKey() + " on YARN vs local[2]";
      if (a.isFloatingPointNumber() && !e.getKey().endsWith("_k")) {
        assertEquals(a.asDouble(), b.asDouble(), 1e-6 * Math.max(1, Math.abs(a.asDouble())), what);
      } else {
        assertEquals(a, b, what);
      }
    }

  }

  static List<Map<String, JsonNode>> metricLines(Path run) throws IOException {
    List<Map<String, JsonNode>> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics/iterations.jsonl"))) {
      if (!line.isBlank()) {
        Map<String, JsonNode> fields = MetricLines.withoutTimes(JSON.readTree(line));
        fields.keySet().removeIf(k -> k.startsWith("executor") || k.startsWith("host")); // where it ran
        out.add(fields);
      }
    }
    return out;
  }
}
