package org.bitopk.job.cluster;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness itself: tasks run in separate executor JVMs, and a killed executor is replaced. And what
 * spark-submit's own JVM prints before the job runs.
 */
@Tag("spark-api")
@ExtendWith(SharedCluster.class)
class StandaloneClusterTest {

  /**
   * Through spark-submit (client mode), a refusal is the job's one line: spark-submit's Spark logs warnings before
   * the job runs (here about a deprecated setting; on many machines about a hostname that resolves to a loopback
   * address), which would come first.
   */
  @Test
  void throughSparkSubmitARefusalIsTheOnlyLine(StandaloneCluster cluster, @TempDir Path tmp) throws Exception {
    Path log = tmp.resolve("refused.log");
    Process submitted = ClusterJob.submit(cluster, List.of("--dataset", "counterexample", "--workers", "0",
        "--output", tmp.resolve("run").toString()), Map.of("spark.executor.port", "7000"), log);
    assertEquals(2, StandaloneCluster.await(submitted, Duration.ofMinutes(2), log));
    assertEquals(List.of("bitopk: --workers: expected an integer >= 1, got 0 (see --help)"), Files.readAllLines(log));
  }

  /**
   * standalone.sh --warm-executors with the application jar's path on the (here local) worker hosts: each of the
   * run's two executors starts with the warm-up agent, which logs its line before the executor's first task.
   */
  @Test
  void throughSparkSubmitWarmExecutorsStartWithTheAgent(StandaloneCluster cluster, @TempDir Path tmp)
      throws Exception {
    Set<Path> before = applications(cluster);
    Path log = tmp.resolve("warm.log");
    Process submitted = ClusterJob.submit(cluster, List.of("--warm-executors", cluster.applicationJar().toString()),
        List.of("train", "--dataset", "synthetic:n=256,test=32,seed=3", "--workers", "2", "--batch-size", "16",
            "--max-iterations", "3", "--quiet", "--output", tmp.resolve("run").toString()), Map.of(), log);
    assertEquals(0, StandaloneCluster.await(submitted, Duration.ofMinutes(3), log),
        () -> StandaloneCluster.tail(log, 60) + "\n" + cluster.executorLogs(30));
    Set<Path> started = applications(cluster);
    started.removeAll(before);
    List<Path> executorLogs = new ArrayList<>();
    for (Path app : started) {
      try (Stream<Path> walk = Files.walk(app)) {
        executorLogs.addAll(walk.filter(p -> p.getFileName().toString().equals("stderr")).toList());
      }
    }
    assertEquals(2, executorLogs.size(), () -> "the run's executors: " + executorLogs);
    for (Path stderr : executorLogs) {
      assertTrue(Files.readString(stderr).contains("ExecutorWarmUpAgent: the executor's JVM warmed up in "),
          () -> stderr + ":\n" + StandaloneCluster.tail(stderr, 30));
    }
  }

  /** The application directories (app-ID) under every Worker's work directory. */
  private static Set<Path> applications(StandaloneCluster cluster) throws IOException {
    Set<Path> apps = new HashSet<>();
    for (Path dir : cluster.workerDirs()) {
      try (Stream<Path> list = Files.list(dir)) {
        list.filter(p -> p.getFileName().toString().startsWith("app-")).forEach(apps::add);
      }
    }
    return apps;
  }

  @Test
  void tasksRunInExecutorJvmsAndSurviveAnExecutorKill(StandaloneCluster cluster, @TempDir Path tmp)
      throws Exception {
    Path out = tmp.resolve("probe");
    Path log = tmp.resolve("driver.log");
    int rounds = 8;
    Process driver = cluster.submit(ClusterProbe.class.getName(), List.of(out.toString(), Integer.toString(rounds), "300"),
        Map.of(), log);

    // Kill worker 0's executor once two rounds have completed.
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (ClusterProbe.rounds(out).size() < 2) {
      assertTrue(driver.isAlive(), () -> "driver ended early:\n" + StandaloneCluster.tail(log, 60));
      assertTrue(System.nanoTime() < deadline, () -> "no progress:\n" + StandaloneCluster.tail(log, 60)
          + "\n" + cluster.executorLogs(30));
      Thread.sleep(100);
    }
    Set<Long> before = new HashSet<>(ClusterProbe.rounds(out).get(1));
    long killed = cluster.killExecutor(0);

    int exit = StandaloneCluster.await(driver, Duration.ofSeconds(120), log);
    assertEquals(0, exit, () -> "driver failed:\n" + StandaloneCluster.tail(log, 80));
    List<List<Long>> seen = ClusterProbe.rounds(out);
    assertEquals(rounds, seen.size());
    long driverPid = Long.parseLong(Files.readString(out.resolve("driver.pid")).trim());
    assertEquals(driver.pid(), driverPid, "the driver runs in the submitted JVM (client mode)");
    assertEquals(2, before.size(), "two tasks ran in two distinct executor JVMs: " + before);
    assertFalse(before.contains(driverPid), "tasks must not run in the driver JVM");
    assertTrue(before.contains(killed), "the killed PID " + killed + " was one of the executors " + before);
    Set<Long> last = new HashSet<>(seen.get(rounds - 1));
    assertFalse(last.contains(killed), "the dead executor cannot run the last round");
    assertTrue(last.stream().noneMatch(p -> p == driverPid));
  }
}
