package org.bitopk.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bitopk.cli.Main;
import org.bitopk.job.cluster.SharedCluster;
import org.bitopk.job.cluster.StandaloneCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job on a real standalone cluster (2 executor JVMs, driver in a third): replicas in other JVMs stay
 * bit-identical to the driver's model (consistency check every round), and when an executor is killed mid-run
 * its shards are recomputed from their broadcasts, its workers' tasks run on with a replica brought up to date
 * (window or snapshot), their lost residuals are counted, and the run finishes.
 */
@Tag("spark-api")
@ExtendWith(SharedCluster.class)
class ClusterTrainingTest {
  private static final int ROUNDS = 200;

  @Test
  void survivesAnExecutorKillWithConsistentReplicas(StandaloneCluster cluster, @TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("run");
    Path log = tmp.resolve("driver.log");
    Process driver = cluster.submit(Main.class.getName(), List.of("train", "--dataset", "counterexample",
        "--epochs", Integer.toString(ROUNDS), "--consistency-check-every", "1", "--snapshot-every", "8",
        "--update-window", "8", "--output", out.toUri().toString(), "--quiet"), Map.of(), log);
    Path iterations = out.resolve("metrics/iterations.jsonl");
    // Generous: the application waits for both executors, which start slowly on a loaded machine.
    long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
    while (!Files.exists(iterations) || Files.readAllLines(iterations).size() < 40) {
      assertTrue(driver.isAlive(), () -> "driver ended early:\n" + StandaloneCluster.tail(log, 60));
      assertTrue(System.nanoTime() < deadline, () -> "no progress:\n" + StandaloneCluster.tail(log, 60));
      Thread.sleep(100);
    }
    cluster.killExecutor(0);
    int exit = StandaloneCluster.await(driver, Duration.ofSeconds(180), log);
    assertEquals(0, exit, () -> "driver failed:\n" + StandaloneCluster.tail(log, 80));
    assertTrue(Files.exists(out.resolve("_SUCCESS")));

    ObjectMapper json = new ObjectMapper();
    List<JsonNode> records = new ArrayList<>();
    for (String line : Files.readAllLines(iterations)) {
      records.add(json.readTree(line));
    }
    assertEquals(ROUNDS, records.size());
    long lost = records.stream().mapToLong(r -> r.get("lost_residuals").asLong()).sum();
    // Every round passed the replica checksum check (else the driver fails); the killed executor's workers
    // continued elsewhere with their residuals lost, and that is counted.
    assertTrue(lost >= 1, "the killed executor's worker residuals must be counted as lost");
    double first = records.get(0).get("optimality_gap").asDouble();
    double last = records.get(ROUNDS - 1).get("optimality_gap").asDouble();
    assertTrue(last < first / 10, "F - F* from " + first + " to " + last);
    JsonNode config = json.readTree(out.resolve("config.json").toFile());
    assertTrue(config.get("resolved").get("spark_master").asText().startsWith("spark://"),
        "spark-submit's master must be used: " + config.get("resolved"));
  }
}
