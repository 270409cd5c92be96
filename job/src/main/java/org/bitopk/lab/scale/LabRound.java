package org.bitopk.lab.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.bitopk.lab.scale.RoundCostModel.Scenario;
import org.bitopk.lab.scale.RoundCostModel.Scheme;

/**
 * One training run of the synthetic-gradient problem on the network lab ({@code job/bench/scale-lab.sh}), read
 * back from its lab directory: the run's settings and per-round timings ({@code run/}), the bytes that crossed the
 * driver's link per round ({@code netlab.json}'s {@code rounds}: bridge-port counters, Ethernet frames) and Spark's
 * per-task medians ({@code spark-timings.json}). Timings are medians over the rounds after the first
 * {@value #WARM_UP_ROUNDS}; bytes per round are the counters' window, which also leaves the first round out.
 *
 * @param rateBitsPerSecond every link's shaped rate (the lab shapes each host's link alike)
 * @param executors worker hosts, one executor each
 * @param roundMillis median wall time of a round on the driver
 * @param jobMillis median wall time of the round's Spark job (launch to the last result)
 * @param computeMillis median of the tasks' own work list-scheduled on the slots ({@code time_task_path_ms})
 * @param driverMillis median of the driver's aggregation and broadcast ({@code time_aggregate_ms +
 *     time_broadcast_ms})
 * @param upBytes the job's uplink bytes per round (all workers)
 * @param downBytes one encoded update per round (the broadcast's payload)
 * @param driverReceivedBytes frames into the driver's host per round
 * @param driverSentBytes frames out of the driver's host per round
 * @param schedulerDelayMillis Spark's median scheduler delay per task ({@code spark-timings.json})
 * @param deserializeMillis Spark's median task deserialization, which includes fetching the task binary with the
 *     update
 */
public record LabRound(String name, long rateBitsPerSecond, Scheme scheme, long dimension, int workers, int tasks,
    int executors, long kUp, long kDown, double roundMillis, double jobMillis, double computeMillis,
    double driverMillis, double upBytes, double downBytes, double upBytesPerCoordinate,
    double downBytesPerCoordinate, double driverReceivedBytes, double driverSentBytes, double schedulerDelayMillis,
    double deserializeMillis) {

  static final int WARM_UP_ROUNDS = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The link's bytes per second. */
  public double bytesPerSecond() {
    return rateBitsPerSecond / 8.0;
  }

  /** Seconds the driver's link needs for the frames that entered the driver per round. */
  public double uplinkTransferMillis() {
    return 1e3 * driverReceivedBytes / bytesPerSecond();
  }

  /** Seconds the driver's link needs for the frames that left the driver per round (the fan-out). */
  public double fanOutMillis() {
    return 1e3 * driverSentBytes / bytesPerSecond();
  }

  /** The round less compute, driver and both transfers: Spark's scheduling and waiting. */
  public double restMillis() {
    return roundMillis - computeMillis - driverMillis - uplinkTransferMillis() - fanOutMillis();
  }

  /** Spark's frames into the driver beyond the uplinks, per task. */
  public double sparkUpBytesPerTask() {
    return (driverReceivedBytes - upBytes) / tasks;
  }

  /** Spark's frames out of the driver beyond one update per executor, per task. */
  public double sparkDownBytesPerTask() {
    return (driverSentBytes - broadcastReceivers() * downBytes) / tasks;
  }

  /** Executors that fetch the update: every executor that runs a task. */
  public int broadcastReceivers() {
    return Math.min(executors, tasks);
  }

  /**
   * How many copies of the update left the driver: its frames less Spark's {@code sparkDownBytesPerTask} for each
   * task, over the update's size.
   */
  public double copiesLeavingDriver(double sparkDownBytesPerTask) {
    return (driverSentBytes - tasks * sparkDownBytesPerTask) / downBytes;
  }

  /**
   * This run as the cost model sees it: its own scheme, sizes and link (no added latency: the lab has none), the
   * given Spark bytes per task, every executor fetching the update once.
   *
   * @param slots workers computing at once (the lab's executors share the machine's cores)
   */
  public Scenario scenario(int slots, double sparkUpBytesPerTask, double sparkDownBytesPerTask) {
    return new Scenario(scheme, dimension, workers, kUp, kDown, slots, bytesPerSecond(), 0, 4, upBytesPerCoordinate,
        downBytesPerCoordinate, tasks, sparkUpBytesPerTask, sparkDownBytesPerTask, 0, 1, broadcastReceivers());
  }

  /** Reads every lab directory directly under {@code dir} that holds a finished run, by name. */
  public static List<LabRound> readAll(Path dir) throws IOException {
    List<LabRound> out = new ArrayList<>();
    try (var entries = Files.list(dir)) {
      for (Path lab : entries.filter(p -> Files.isRegularFile(p.resolve("netlab.json"))).sorted().toList()) {
        out.add(read(lab));
      }
    }
    return out;
  }

  /**
   * Reads one lab directory.
   *
   * @throws IllegalArgumentException when a file is missing what the report needs (named in the message)
   */
  public static LabRound read(Path lab) throws IOException {
    Path run = lab.resolve("run");
    JsonNode config = JSON.readTree(run.resolve("config.json").toFile());
    JsonNode resolved = config.path("resolved");
    Scheme scheme = switch (config.path("mode").asText()) {
      case "bidirectional" -> Scheme.BIDIRECTIONAL;
      case "unidirectional" -> Scheme.UNIDIRECTIONAL;
      case "dense" -> Scheme.DENSE;
      default -> throw new IllegalArgumentException(run.resolve("config.json") + ": mode "
          + config.path("mode") + ", expected bidirectional, unidirectional or dense");
    };
    long d = require(resolved, "dimension", run.resolve("config.json")).asLong();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics/iterations.jsonl"))) {
      if (!line.isBlank()) {
        lines.add(JSON.readTree(line));
      }
    }
    if (lines.size() <= WARM_UP_ROUNDS) {
      throw new IllegalArgumentException(run + ": " + lines.size() + " rounds, expected more than "
          + WARM_UP_ROUNDS);
    }
    List<JsonNode> steady = lines.subList(WARM_UP_ROUNDS, lines.size());
    JsonNode first = steady.get(0);
    long kUp = scheme == Scheme.DENSE ? d : Math.round(first.path("up_nnz").asDouble() / first.path("workers").asInt());
    long kDown = scheme == Scheme.DENSE ? d : first.path("down_target_k").asLong();

    JsonNode netlab = JSON.readTree(lab.resolve("netlab.json").toFile());
    JsonNode rounds = require(netlab, "rounds", lab.resolve("netlab.json"));
    JsonNode driverHost = rounds.path("hosts").get(0);
    JsonNode hosts = netlab.path("hosts");
    long rate = rateBits(hosts.get(0).path("rate").asText(), lab.resolve("netlab.json"));
    JsonNode timings = JSON.readTree(lab.resolve("spark-timings.json").toFile());

    return new LabRound(lab.getFileName().toString(), rate, scheme, d, first.path("workers").asInt(),
        first.path("tasks").asInt(), hosts.size() - 1, kUp, kDown,
        median(steady, l -> l.path("time_total_ms").asDouble()), median(steady, l -> l.path("time_job_ms").asDouble()),
        median(steady, l -> l.path("time_task_path_ms").asDouble()),
        median(steady, l -> l.path("time_aggregate_ms").asDouble() + l.path("time_broadcast_ms").asDouble()),
        mean(steady, l -> l.path("up_bytes").asDouble()), mean(steady, l -> l.path("down_bytes").asDouble()),
        mean(steady, l -> l.path("up_bytes").asDouble() / l.path("up_nnz").asDouble()),
        mean(steady, l -> l.path("down_bytes").asDouble() / l.path("down_nnz").asDouble()),
        require(driverHost, "received_bytes_per_round", lab.resolve("netlab.json")).asDouble(),
        require(driverHost, "sent_bytes_per_round", lab.resolve("netlab.json")).asDouble(),
        timings.path("scheduler_delay_ms").asDouble(), timings.path("deserialize_ms").asDouble());
  }

  /** netlab's rate notation (100mbit, 1gbit, 500kbit) in bits per second. */
  static long rateBits(String rate, Path file) {
    String r = rate.toLowerCase(Locale.ROOT);
    long unit = r.endsWith("gbit") ? 1_000_000_000L : r.endsWith("mbit") ? 1_000_000L : r.endsWith("kbit") ? 1_000L : 0;
    if (unit == 0) {
      throw new IllegalArgumentException(file + ": link rate '" + rate + "', expected a shaped rate such as 100mbit "
          + "(an unshaped lab has no link term to check)");
    }
    return Math.round(Double.parseDouble(r.substring(0, r.length() - 4)) * unit);
  }

  private static JsonNode require(JsonNode node, String field, Path file) {
    if (!node.hasNonNull(field)) {
      throw new IllegalArgumentException(file + ": no '" + field + "'");
    }
    return node.get(field);
  }

  private static double mean(List<JsonNode> lines, ToDoubleFunction<JsonNode> f) {
    return lines.stream().mapToDouble(f).average().orElseThrow();
  }

  static double median(List<JsonNode> lines, ToDoubleFunction<JsonNode> f) {
    double[] v = lines.stream().mapToDouble(f).sorted().toArray();
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}
