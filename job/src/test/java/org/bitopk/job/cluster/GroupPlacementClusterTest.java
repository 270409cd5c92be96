package org.bitopk.job.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * P = 8 workers in 4 tasks on the two executors of a real standalone cluster, shards read from the data set by
 * the executors: the only RDD blocks ever stored are the 4 groups', two on each executor (no executor caches a
 * worker's shard by itself, so none fetches another's), and every round runs two tasks on each executor.
 */
@Tag("spark-api")
@ExtendWith(SharedCluster.class)
class GroupPlacementClusterTest {
  private static final int ROUNDS = 6;

  @Test
  void groupsAreBuiltOnTheirOwnExecutorsAndSpreadOverThem(StandaloneCluster cluster, @TempDir Path tmp)
      throws Exception {
    Path out = tmp.resolve("run");
    Path log = tmp.resolve("driver.log");
    Path placement = tmp.resolve("placement.txt");
    Process driver = ClusterJob.submit(cluster, List.of("train", "--dataset", "synthetic:n=1600,test=100,seed=3",
        "--model", "mlp-small", "--workers", "8", "--tasks", "4", "--batch-size", "32",
        "--max-iterations", Integer.toString(ROUNDS), "--output", out.toString(), "--quiet"),
        Map.of("spark.extraListeners", TaskPlacementListener.class.getName(), TaskPlacementListener.FILE,
            placement.toString()), log);
    assertEquals(0, StandaloneCluster.await(driver, Duration.ofMinutes(3), log),
        () -> StandaloneCluster.tail(log, 60));
    assertEquals(ROUNDS, ClusterJob.iterations(out).size());

    Map<String, Integer> blocksPerExecutor = new TreeMap<>();
    Map<String, String> blockHolder = new HashMap<>();
    Map<String, Integer> stageTasks = new HashMap<>();
    Map<String, Map<String, Integer>> tasksByStage = new HashMap<>();
    for (String line : Files.readAllLines(placement)) {
      String[] f = line.split(" ");
      switch (f[0]) {
        case "block" -> blockHolder.put(f[1] + "_" + f[2], f[3]);
        case "stage" -> stageTasks.put(f[1], Integer.parseInt(f[2]));
        case "task" -> tasksByStage.computeIfAbsent(f[1], s -> new TreeMap<>()).merge(f[2], 1, Integer::sum);
        case "job", "executor" -> { }
        default -> throw new AssertionError(line);
      }
    }
    blockHolder.values().forEach(e -> blocksPerExecutor.merge(e, 1, Integer::sum));
    assertEquals(4, blockHolder.size(), "the groups' blocks alone: " + blockHolder);
    assertEquals(1, blockHolder.keySet().stream().map(b -> b.split("_")[0]).distinct().count(), "" + blockHolder);
    assertEquals(List.of(2, 2), List.copyOf(blocksPerExecutor.values()), "groups per executor: " + blocksPerExecutor);
    long rounds = 0;
    for (Map.Entry<String, Integer> stage : stageTasks.entrySet()) {
      if (stage.getValue() == 4) {
        rounds++;
        assertEquals(List.of(2, 2), List.copyOf(tasksByStage.get(stage.getKey()).values()),
            "tasks per executor in stage " + stage.getKey() + ": " + tasksByStage.get(stage.getKey()));
      }
    }
    assertTrue(rounds >= ROUNDS, rounds + " stages of 4 tasks: " + stageTasks);
  }
}
