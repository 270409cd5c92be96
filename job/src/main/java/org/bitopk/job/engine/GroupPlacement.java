package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import scala.Option;
import scala.collection.JavaConverters;

/**
 * Which executor builds and caches each worker group: group g goes to executor g mod E of the E executors (sorted
 * by host and id), so every executor holds ⌊S/E⌋ or ⌈S/E⌉ of the S groups and none is left idle while another runs
 * two. Left to itself, Spark puts a task where its first input partition is cached, or on whichever executor asks
 * first, and two groups can settle on one executor for the whole run.
 *
 * <p>A location is Spark's executor-cache form {@code executor_HOST_ID}, which the scheduler treats as
 * process-local to that executor. Without executors of its own (local mode: tasks run inside the driver) nothing
 * is placed.
 */
record GroupPlacement(List<String> executors) {
  private static final long REGISTRATION_WAIT_MILLIS = 10_000;

  GroupPlacement {
    executors = List.copyOf(executors);
  }

  /**
   * The executors the scheduler knows, by their block managers (which give the host), the driver's own left out.
   * An executor registers with the scheduler a moment before its block manager registers with the driver; this
   * waits up to {@link #REGISTRATION_WAIT_MILLIS} for the block managers of all of them.
   */
  static GroupPlacement ofRegisteredExecutors(SparkContext sc) {
    if (sc.isLocal()) {
      return new GroupPlacement(List.of());   // the tasks run inside the driver
    }
    long deadline = System.nanoTime() + REGISTRATION_WAIT_MILLIS * 1_000_000L;
    while (true) {
      List<BlockManagerId> ids = new ArrayList<>(JavaConverters.asJavaCollection(
          SparkEnv.get().blockManager().master().getMemoryStatus().keys()));
      ids.removeIf(BlockManagerId::isDriver);
      Set<String> known = ids.stream().map(BlockManagerId::executorId).collect(Collectors.toSet());
      if (known.containsAll(JavaConverters.seqAsJavaList(sc.getExecutorIds())) || System.nanoTime() > deadline) {
        ids.sort(Comparator.comparing(BlockManagerId::host).thenComparing(id -> id.executorId().length())
            .thenComparing(BlockManagerId::executorId));
        return new GroupPlacement(ids.stream().map(id -> "executor_" + id.host() + "_" + id.executorId()).toList());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the executors' block managers", e);
      }
    }
  }

  /** Where group g is to be built, or none when there are no executors to choose from. */
  Option<String> location(int group) {
    return executors.isEmpty() ? Option.empty() : Option.apply(executors.get(group % executors.size()));
  }

  /**
   * The groups in waves of at most one per executor (wave w: groups w·E to (w+1)·E − 1), built one wave after the
   * other. Each wave starts with every executor free, so each task goes to its own executor at once; in one job
   * of all S groups, an executor that finished its groups early would take a slower one's after Spark's
   * locality wait (3 s), and keep it for the run.
   */
  List<List<Integer>> waves(int groups) {
    int width = executors.isEmpty() ? groups : executors.size();
    List<List<Integer>> waves = new ArrayList<>();
    for (int first = 0; first < groups; first += width) {
      List<Integer> wave = new ArrayList<>();
      for (int g = first; g < Math.min(groups, first + width); g++) {
        wave.add(g);
      }
      waves.add(wave);
    }
    return waves;
  }
}
