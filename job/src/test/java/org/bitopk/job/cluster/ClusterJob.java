package org.bitopk.job.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Submits the training job ({@code org.bitopk.cli.Main}) to a {@link StandaloneCluster} through the project's
 * own {@code submit/standalone.sh} and {@code submit/spark-defaults.conf}, and reads a run's output back.
 */
final class ClusterJob {
  static final Path SUBMIT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent()
      .resolve("submit");
  static final ObjectMapper JSON = new ObjectMapper();

  private ClusterJob() {
  }

  /** Starts {@code submit/standalone.sh} with two one-core executors and the given job arguments. */
  static Process submit(StandaloneCluster cluster, List<String> jobArgs, Path log) throws IOException {
    return submit(cluster, jobArgs, java.util.Map.of(), log);
  }

  /** The same with Spark settings of the test's own, which win over the cluster's base settings. */
  static Process submit(StandaloneCluster cluster, List<String> jobArgs, java.util.Map<String, String> conf, Path log)
      throws IOException {
    return submit(cluster, List.of(), jobArgs, conf, log);
  }

  /** The same with options of standalone.sh's own ({@code scriptOptions}) before the Spark settings. */
  static Process submit(StandaloneCluster cluster, List<String> scriptOptions, List<String> jobArgs,
      java.util.Map<String, String> conf, Path log) throws IOException {
    List<String> command = new ArrayList<>(List.of("/bin/bash", SUBMIT.resolve("standalone.sh").toString(),
        "--master", cluster.masterUrl(), "--executors", "2", "--executor-cores", "1",
        "--executor-memory", "1g", "--jar", cluster.applicationJar().toString(),
        "--secret-file", cluster.secretFile().toString()));
    command.addAll(scriptOptions);
    java.util.Map<String, String> all = new java.util.TreeMap<>(cluster.baseConf());
    all.putAll(conf);
    all.forEach((k, v) -> {
      if (!k.equals("spark.executor.memory")) {
        command.addAll(List.of("--conf", k + "=" + v));
      }
    });
    command.add("--");
    command.addAll(jobArgs);
    return cluster.start(command, log);
  }

  static List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    try (Stream<String> lines = Files.lines(file)) {
      for (String line : (Iterable<String>) lines::iterator) {
        if (!line.isBlank()) {
          out.add(JSON.readTree(line));
        }
      }
    }
    return out;
  }

  static List<JsonNode> iterations(Path run) throws IOException {
    return lines(run.resolve("metrics/iterations.jsonl"));
  }

  static List<JsonNode> epochs(Path run) throws IOException {
    return lines(run.resolve("metrics/epochs.jsonl"));
  }

  static double finalAccuracy(Path run) throws IOException {
    List<JsonNode> epochs = epochs(run);
    return epochs.get(epochs.size() - 1).path("test_accuracy").asDouble(Double.NaN);
  }
}
