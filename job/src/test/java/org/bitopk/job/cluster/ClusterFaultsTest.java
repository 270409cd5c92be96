package org.bitopk.job.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import org.bitopk.job.checkpoint.MetricLines;
import org.bitopk.job.engine.FaultInjector;
import org.bitopk.job.engine.InjectedFaults;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The training job on a real standalone cluster (a driver JVM and two executor JVMs), submitted with
 * submit/standalone.sh, undisturbed and under faults: an executor killed mid-run, and the driver killed
 * mid-run then resumed. All runs share one configuration, so the undisturbed run is the reference. The cluster
 * authenticates and encrypts; during the undisturbed run, no process's command line holds its secret.
 */
@Tag("spark-api")
@ExtendWith(SharedCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFaultsTest {
  /**
   * 3 epochs of 50 rounds: 1,600 synthetic examples per worker, batch 32. Long enough to converge (about 99%
   * test accuracy), so that the accuracy after a lost residual is compared at a plateau, not mid-climb.
   */
  static final int EPOCHS = 3;
  static final int ITERATIONS = 150;
  static final int CHECKPOINT_EVERY = 10;
  /** The faults strike once the checkpoint of this round exists: about half way. */
  static final int STRIKE_AFTER = 70;
  static final Duration RUN_TIMEOUT = Duration.ofMinutes(4);

  /** Under target/ rather than a temporary directory: the runs and driver logs stay for inspection. */
  static Path runs;
  static Path reference;

  @BeforeAll
  static void outputs() throws IOException {
    runs = Path.of(System.getProperty("basedir", "."), "target", "cluster-runs").toAbsolutePath();
    if (Files.exists(runs)) {
      try (Stream<Path> walk = Files.walk(runs)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    Files.createDirectories(runs);
  }

  static List<String> jobArgs(Path output) {
    return List.of("--dataset", "synthetic:n=3200,test=2000,noise=4,seed=3", "--model", "mlp-small",
        "--workers", "2", "--batch-size", "32", "--lr", "0.05", "--epochs", Integer.toString(EPOCHS),
        "--consistency-check-every", "10", "--snapshot-every", "16", "--update-window", "16",
        "--checkpoint-every", Integer.toString(CHECKPOINT_EVERY), "--output", output.toString(), "--quiet");
  }

  @Test
  @Order(1)
  void undisturbedRunWithTheSecretOnNoCommandLine(StandaloneCluster cluster) throws Exception {
    Path out = runs.resolve("undisturbed");
    Path log = runs.resolve("undisturbed.log");
    try (ProcessListWatch watch = ProcessListWatch.start(cluster.secret())) {
      Process driver = ClusterJob.submit(cluster, jobArgs(out), log);
      assertEquals(0, StandaloneCluster.await(driver, RUN_TIMEOUT, log), () -> diagnostics(cluster, log));
      // every user of the machine may read a command line; the secret lets its holder join the cluster
      assertEquals(java.util.Set.of(), watch.holders(), "command lines holding the cluster's secret");
      assertEquals(4, watch.seen().size(), "the watch saw the driver, executors and daemons: " + watch.seen());
    }
    assertTrue(Files.exists(out.resolve("_SUCCESS")));
    List<JsonNode> iterations = ClusterJob.iterations(out);
    assertEquals(ITERATIONS, iterations.size());
    for (JsonNode it : iterations) {
      assertEquals(0, it.path("lost_residuals").asInt(), it.toString());
    }
    assertEquals(EPOCHS, ClusterJob.epochs(out).size());
    assertTrue(ClusterJob.finalAccuracy(out) > 0.8, "accuracy " + ClusterJob.finalAccuracy(out));
    reference = out;
  }

  @Test
  @Order(2)
  void executorKilledMidRunIsReplacedAndTheRunCompletes(StandaloneCluster cluster) throws Exception {
    assertNotNull(reference, "needs the undisturbed run");
    Path out = runs.resolve("executor-killed");
    Path log = runs.resolve("executor-killed.log");
    Process driver = ClusterJob.submit(cluster, jobArgs(out), log);
    awaitCheckpoint(out, STRIKE_AFTER, driver, log);
    long killed = cluster.killExecutor(0);
    assertEquals(0, StandaloneCluster.await(driver, RUN_TIMEOUT, log),
        () -> "after killing executor " + killed + ":\n" + diagnostics(cluster, log));

    // The run completed every round; consistency checks (every 10 rounds) passed on the new executor.
    List<JsonNode> iterations = ClusterJob.iterations(out);
    assertEquals(ITERATIONS, iterations.size());
    long lost = iterations.stream().mapToLong(it -> it.path("lost_residuals").asLong()).sum();
    long lostBefore = iterations.stream().limit(STRIKE_AFTER)
        .mapToLong(it -> it.path("lost_residuals").asLong()).sum();
    assertEquals(0, lostBefore, "nothing lost before the kill");
    assertTrue(lost >= 1, "the killed executor's worker residual must be reported lost");
    String summary = Files.readString(out.resolve("summary.txt"));
    assertTrue(summary.matches("(?s).*lost residuals\\s+" + lost + "\\b.*"), summary);
    double undisturbed = ClusterJob.finalAccuracy(reference);
    double disturbed = ClusterJob.finalAccuracy(out);
    assertTrue(Math.abs(undisturbed - disturbed) <= 0.01,
        "accuracy " + disturbed + " after an executor loss, " + undisturbed + " undisturbed");
    System.out.printf("executor kill: %d residual(s) lost, accuracy %.4f vs %.4f undisturbed%n", lost, disturbed,
        undisturbed);
  }

  @Test
  @Order(3)
  void driverKilledMidRunResumesToTheUndisturbedModelBitForBit(StandaloneCluster cluster) throws Exception {
    assertNotNull(reference, "needs the undisturbed run");
    Path out = runs.resolve("driver-killed");
    Path log = runs.resolve("driver-killed.log");
    Process driver = ClusterJob.submit(cluster, jobArgs(out), log);
    awaitCheckpoint(out, STRIKE_AFTER, driver, log);
    driver.destroyForcibly();   // SIGKILL: no shutdown hook, no flush
    assertTrue(driver.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
    assertFalse(Files.exists(out.resolve("_SUCCESS")));

    Path resumeLog = runs.resolve("driver-resumed.log");
    Process resumed = ClusterJob.submit(cluster, List.of("--resume", out.toString(), "--quiet"), resumeLog);
    assertEquals(0, StandaloneCluster.await(resumed, RUN_TIMEOUT, resumeLog), () -> diagnostics(cluster, resumeLog));
    assertTrue(Files.exists(out.resolve("_SUCCESS")));

    assertSameModel(reference, out);
    List<JsonNode> a = ClusterJob.iterations(reference);
    List<JsonNode> b = ClusterJob.iterations(out);
    assertEquals(ITERATIONS, b.size(), "every round exactly once in the resumed run's metrics");
    for (int t = 0; t < ITERATIONS; t++) {
      assertEquals(MetricLines.withoutTimes(a.get(t)), MetricLines.withoutTimes(b.get(t)), "iteration " + t);
    }
    assertEquals(ClusterJob.epochs(reference).size(), ClusterJob.epochs(out).size());
  }

  /**
   * Speculation on: the task of worker 1 is made slow in round 40 (its first attempt sleeps 8 s after the step),
   * Spark launches a speculative copy on the other executor, which lacks the worker's state and defers to the
   * original; the original finishes, the copy is killed. The run completes, every consistency check passes, no
   * residual is lost and the model is the undisturbed run's bit for bit.
   */
  @Test
  @Order(4)
  void speculativeCopiesOfASlowTaskLeaveTheModelUnchanged(StandaloneCluster cluster) throws Exception {
    assertNotNull(reference, "needs the undisturbed run");
    Path out = runs.resolve("speculation");
    Path log = runs.resolve("speculation.log");
    java.util.Map<String, String> conf = new java.util.HashMap<>();
    conf.put("spark.speculation", "true");
    conf.put("spark.speculation.interval", "100ms");
    conf.put("spark.speculation.quantile", "0.5");
    conf.put("spark.speculation.multiplier", "2");
    conf.put("spark.speculation.minTaskRuntime", "1s");
    // the application jar holds the test classes: the injector reaches the driver and the executors with it
    conf.put(FaultInjector.SETTING, InjectedFaults.SlowWorker.class.getName() + ":40:1:4000");
    List<String> args = new java.util.ArrayList<>(jobArgs(out));
    int checkpointFlag = args.indexOf("--checkpoint-every");
    args.subList(checkpointFlag, checkpointFlag + 2).clear();   // the flag and its value
    Process driver = ClusterJob.submit(cluster, args, conf, log);
    assertEquals(0, StandaloneCluster.await(driver, RUN_TIMEOUT, log), () -> diagnostics(cluster, log));
    String driverLog = Files.readString(log) + runLogs(out);
    // A second attempt of a task killed while another attempt of it completed ("another attempt succeeded" or
    // "Stage finished", whichever Spark saw first; Spark 4 says the latter as "Stage cancelled: Stage finished"):
    // only a speculative copy runs beside the original (a retry after a failure follows the failed attempt). The
    // run's own path contains "speculation", so the log is searched for Spark's line, not the word.
    assertTrue(driverLog.matches("(?s).*Lost task \\d+\\.[1-9]\\d* in stage [\\d.]+ [^\n]*TaskKilled "
        + "\\((another attempt succeeded|(Stage cancelled: )?Stage finished)\\).*"),
        "no speculative attempt was launched:\n" + StandaloneCluster.tail(log, 40));
    assertSameModel(reference, out);
    List<JsonNode> iterations = ClusterJob.iterations(out);
    assertEquals(ITERATIONS, iterations.size());
    assertEquals(0, iterations.stream().mapToLong(it -> it.path("lost_residuals").asLong()).sum());
  }

  /**
   * No dense model at start, across JVMs: in the undisturbed run the executors built the driver's x_0 with their own
   * ND4J (no snapshot loaded in round 0, which delivered the update alone, less than a dense x_0's 4·d bytes). With
   * every executor's x_0 one bit off, each new replica loads the snapshot instead, the driver says so in one line,
   * round 0 delivers 4·d bytes more per replica, and the rounds are the undisturbed run's, loss for loss.
   */
  @Test
  @Order(5)
  void replicasWhoseOwnStartDiffersLoadTheSnapshot(StandaloneCluster cluster) throws Exception {
    assertNotNull(reference, "needs the undisturbed run");
    int rounds = 12;
    int d = parameters(reference.resolve("model.zip")).length;
    List<JsonNode> undisturbed = ClusterJob.iterations(reference);
    JsonNode first = undisturbed.get(0);
    assertEquals(0, first.path("replica_resyncs").asInt(), first.toString());
    assertEquals(2 * first.path("down_bytes").asLong(), first.path("down_bytes_delivered").asLong());
    assertTrue(first.path("down_bytes_delivered").asLong() < 4L * d, first.toString());

    Path out = runs.resolve("perturbed-start");
    Path log = runs.resolve("perturbed-start.log");
    List<String> args = new java.util.ArrayList<>(jobArgs(out));
    int checkpointFlag = args.indexOf("--checkpoint-every");
    args.subList(checkpointFlag, checkpointFlag + 2).clear();
    args.addAll(List.of("--max-iterations", Integer.toString(rounds)));
    Process driver = ClusterJob.submit(cluster, args, java.util.Map.of(FaultInjector.SETTING,
        InjectedFaults.PerturbedStart.class.getName()), log);
    assertEquals(0, StandaloneCluster.await(driver, RUN_TIMEOUT, log), () -> diagnostics(cluster, log));
    List<JsonNode> perturbed = ClusterJob.iterations(out);
    assertEquals(rounds, perturbed.size());
    JsonNode reloaded = perturbed.get(0);
    assertEquals(2, reloaded.path("replica_resyncs").asInt(), "each executor's new replica: " + reloaded);
    assertEquals(first.path("down_bytes_delivered").asLong() + 2 * 4L * d, reloaded.path("down_bytes_delivered")
        .asLong());
    String driverLog = runLogs(out);
    long lines = driverLog.lines().filter(l -> l.contains("round 0: 2 new replica(s) built an x_0 whose checksum "
        + "is not the driver's")).count();
    assertEquals(1, lines, driverLog);
    for (int t = 0; t < rounds; t++) {
      assertEquals(undisturbed.get(t).path("loss").asDouble(), perturbed.get(t).path("loss").asDouble(), 0.0,
          "loss of round " + t);
      assertEquals(undisturbed.get(t).path("down_bytes").asLong(), perturbed.get(t).path("down_bytes").asLong());
    }
  }

  /**
   * Graceful decommission, and the executor that comes back: the executor of the second Worker gets SIGPWR (as
   * the standalone Worker passes a node's notice on) while it runs the slow round 75 of worker 1; it finishes the
   * round, hands worker 1's state to the driver as it stops, and worker 1 moves to the first executor with it.
   * The Worker starts a new executor, which registers while rounds 78 to 149 are slowed (0.3 s each, at least
   * 21 s in all, three times what registering and building its groups took under a loaded CI run; and shorter than
   * the locality wait, so the first executor's queued task waits for it rather than running on the new executor
   * without its state); once its groups are built, the next round's task of the moving group returns its worker's
   * state from the first executor with its report, and the round after it runs the group on the new executor. No residual is lost and the model is the undisturbed run's bit for bit. Both moves run no
   * Spark job of their own: every round, the moves' too, waits for exactly one job (a driver-side listener
   * records each job with its round), the states travelling in the round's results and tasks; and the new
   * executor's first task of a round is the move's, which finds the worker's state there within that round (no
   * lost residual). The run reports the rounds from that executor's registration to its first work, as the
   * listener's own record of the registration and of the tasks dates them.
   */
  @Test
  @Order(6)
  void decommissionedExecutorHandsItsWorkersOverAndTheReturningOneTakesThemBack(StandaloneCluster cluster)
      throws Exception {
    assertNotNull(reference, "needs the undisturbed run");
    Path out = runs.resolve("decommission");
    Path log = runs.resolve("decommission.log");
    Path events = runs.resolve("decommission-events.txt");
    Process driver = ClusterJob.submit(cluster, jobArgs(out), java.util.Map.of("spark.decommission.enabled", "true",
        FaultInjector.SETTING, InjectedFaults.SlowWorker.class.getName() + ":75:1:4000,78-149:0:300",
        "spark.extraListeners", TaskPlacementListener.class.getName(), TaskPlacementListener.FILE,
        events.toString()), log);
    awaitCheckpoint(out, STRIKE_AFTER, driver, log);
    while (ClusterJob.iterations(out).size() < 75) {   // then round 75 sleeps on the second executor
      assertTrue(driver.isAlive(), () -> StandaloneCluster.tail(log, 60));
      Thread.sleep(20);
    }
    long pid = cluster.executors(1).get(0).pid();
    assertEquals(0, new ProcessBuilder("kill", "-PWR", Long.toString(pid)).start().waitFor());
    assertEquals(0, StandaloneCluster.await(driver, RUN_TIMEOUT, log), () -> diagnostics(cluster, log));

    assertSameModel(reference, out);
    List<JsonNode> iterations = ClusterJob.iterations(out);
    assertEquals(ITERATIONS, iterations.size());
    assertEquals(0, iterations.stream().mapToLong(it -> it.path("lost_residuals").asLong()).sum());
    List<Long> moves = iterations.stream().filter(it -> it.path("moved_workers").asInt() > 0)
        .map(it -> it.path("iteration").asLong()).toList();
    assertEquals(2, moves.size(), "a move away and a move back: " + moves + "\n" + StandaloneCluster.tail(log, 40));
    // away at the round boundary after the notice, back once the Worker's new executor registers and its groups are
    // built, during the slowed rounds 78-149, which only make sure it has the time
    assertTrue(moves.get(0) > 74 && moves.get(0) < 110 && moves.get(1) > moves.get(0), "moved before rounds " + moves);
    for (JsonNode it : iterations) {
      // the move back's states left the first executor in the reports of the round before it
      int departing = it.path("iteration").asLong() == moves.get(1) - 1 ? 1 : 0;
      assertEquals(departing, it.path("departing_workers").asInt(), it.toString());
    }
    for (long t : moves) {
      JsonNode it = iterations.get((int) t);
      assertEquals(1, it.path("moved_workers").asInt(), it.toString());
      assertTrue(it.path("moved_bytes").asLong() >= 4L * parameters(out.resolve("model.zip")).length,
          "a residual moved: " + it);
    }
    assertTrue(Files.readString(out.resolve("summary.txt")).matches("(?s).*moved workers\\s+2\\b.*"));

    SparkEvents spark = SparkEvents.read(events);
    for (int t = 0; t < ITERATIONS; t++) {
      assertEquals(1, spark.jobsOfRound(t), "Spark jobs of round " + t + " (moves before rounds " + moves + ")");
    }
    List<String> joined = spark.executorsAddedAfter(spark.firstJobTime());
    assertEquals(1, joined.size(), "the Worker's new executor alone registered during the run: " + joined);
    int firstWork = spark.firstRoundWithTaskOn(joined.get(0));
    assertEquals(moves.get(1), (long) firstWork, "the new executor's first round's task is the move back's");
    int registeredBefore = spark.firstRoundSubmittedAfter(spark.executorAddedTime(joined.get(0)));
    for (JsonNode it : iterations) {
      boolean first = it.path("iteration").asInt() == firstWork;
      assertEquals(first, it.has("rounds_to_work"), it.toString());
    }
    int rounds = iterations.get(firstWork).path("rounds_to_work").get(0).asInt();
    // registered during round r: the next round's job (or round r's own, when it registered at r's boundary)
    // is the first submitted after it
    int registered = firstWork - rounds;
    assertTrue(registered == registeredBefore - 1 || registered == registeredBefore,
        "registered during round " + registered + "; the first job after it is round " + registeredBefore + "'s");
    assertTrue(Files.readString(out.resolve("summary.txt"))
        .matches("(?s).*new executors\\s+1, working " + rounds + " round\\(s\\) after registering.*"));
  }

  /** Waits for the checkpoint of round {@code round} (or a later one) in run directory {@code out}. */
  static void awaitCheckpoint(Path out, int round, Process driver, Path log) throws Exception {
    long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
    Path dir = out.resolve("checkpoints");
    while (true) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> files = Files.list(dir)) {
          if (files.map(p -> p.getFileName().toString()).filter(n -> n.matches("checkpoint-\\d{10}\\.bin"))
              .anyMatch(n -> Integer.parseInt(n.substring(11, 21)) >= round)) {
            return;
          }
        }
      }
      assertTrue(driver.isAlive(), () -> "the run ended before round " + round + ":\n" + StandaloneCluster.tail(log, 60));
      assertTrue(System.nanoTime() < deadline, "no checkpoint of round " + round + " in time");
      Thread.sleep(20);
    }
  }

  /** The two runs' models hold the same parameters, bit for bit. */
  static void assertSameModel(Path expectedRun, Path actualRun) throws IOException {
    float[] expected = parameters(expectedRun.resolve("model.zip"));
    float[] actual = parameters(actualRun.resolve("model.zip"));
    assertEquals(expected.length, actual.length);
    for (int j = 0; j < expected.length; j++) {
      assertEquals(Float.floatToRawIntBits(expected[j]), Float.floatToRawIntBits(actual[j]), "parameter " + j);
    }
  }

  static float[] parameters(Path modelZip) throws IOException {
    MultiLayerNetwork network = ModelSerializer.restoreMultiLayerNetwork(modelZip.toFile(), false);
    return network.params().toFloatVector();
  }

  /** The driver's log files in the run's logs/ directory: where Spark's messages go, not to the console. */
  static String runLogs(Path run) throws IOException {
    StringBuilder all = new StringBuilder();
    Path logs = run.resolve("logs");
    if (Files.isDirectory(logs)) {
      try (java.util.stream.Stream<Path> files = Files.list(logs)) {
        for (Path f : files.sorted().toList()) {
          all.append(Files.readString(f));
        }
      }
    }
    return all.toString();
  }

  static String diagnostics(StandaloneCluster cluster, Path log) {
    return StandaloneCluster.tail(log, 80) + "\n" + cluster.executorLogs(40);
  }
}
