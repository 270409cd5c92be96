package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import org.jspecify.annotations.Nullable;
import scala.Option;
import scala.collection.JavaConverters;

/**
 * Which executor builds and caches each worker group: group g goes to executor g mod E of the E executors (sorted
 * by host and id), so every executor holds ⌊S/E⌋ or ⌈S/E⌉ of the S groups and none is left idle while another runs
 * two. Left to itself, Spark puts a task where its first input partition is cached, or on whichever executor asks
 * first, and two groups can settle on one executor for the whole run.
 *
 * <p>When executors come and go, {@link #rebalanced} gives each group an executor of its own again, moving as few
 * groups as it can; the placement then names each group's executor ({@code assignment}).
 *
 * <p>A location is Spark's executor-cache form {@code executor_HOST_ID}, which the scheduler treats as
 * process-local to that executor. Without executors of its own (local mode: tasks run inside the driver) nothing
 * is placed.
 *
 * @param executors the executors, in order
 * @param assignment per group, its executor; empty for group g on executor g mod E
 */
record GroupPlacement(List<String> executors, List<String> assignment) {
  private static final long REGISTRATION_WAIT_MILLIS = 10_000;

  GroupPlacement {
    executors = List.copyOf(executors);
    assignment = List.copyOf(assignment);
  }

  /** Group g on executor g mod E. */
  GroupPlacement(List<String> executors) {
    this(executors, List.of());
  }

  /**
   * Where the groups go when {@code live} are the executors: every live executor holds ⌊S/E⌋ or ⌈S/E⌉ of the S
   * groups, and as few groups as possible leave the executor they are on. The executors that keep ⌈S/E⌉ are
   * those holding the most; each keeps its lowest groups up to its share, the rest and the groups of executors no
   * longer live go, in group order, to the first executors with room.
   *
   * @param current per group, the executor it is on, or null when it is on none of {@code live}
   */
  static GroupPlacement rebalanced(List<@Nullable String> current, List<String> live) {
    int groups = current.size();
    int width = live.size();
    if (width == 0) {
      throw new IllegalArgumentException("no live executor to place " + groups + " groups on");
    }
    Map<String, List<Integer>> held = new LinkedHashMap<>();
    live.forEach(e -> held.put(e, new ArrayList<>()));
    for (int g = 0; g < groups; g++) {
      List<Integer> on = current.get(g) == null ? null : held.get(current.get(g));
      if (on != null) {
        on.add(g);
      }
    }
    List<String> byHeld = new ArrayList<>(live);
    byHeld.sort(Comparator.comparingInt((String e) -> held.get(e).size()).reversed());   // stable: live order
    Map<String, Integer> share = new LinkedHashMap<>();
    for (int i = 0; i < width; i++) {
      share.put(byHeld.get(i), groups / width + (i < groups % width ? 1 : 0));
    }
    String[] target = new String[groups];
    for (String e : live) {
      List<Integer> on = held.get(e);
      int kept = Math.min(on.size(), share.get(e));
      for (int i = 0; i < kept; i++) {
        target[on.get(i)] = e;
      }
      share.merge(e, -kept, Integer::sum);
    }
    for (int g = 0; g < groups; g++) {
      if (target[g] == null) {
        for (String e : live) {
          if (share.get(e) > 0) {
            target[g] = e;
            share.merge(e, -1, Integer::sum);
            break;
          }
        }
      }
    }
    return new GroupPlacement(live, Arrays.asList(target));
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
    if (!assignment.isEmpty()) {
      return Option.apply(assignment.get(group));
    }
    return executors.isEmpty() ? Option.empty() : Option.apply(executors.get(group % executors.size()));
  }

  /**
   * The groups in waves of at most one per executor (wave w: groups w·E to (w+1)·E − 1), built one wave after the
   * other. Each wave starts with every executor free, so each task goes to its own executor at once; in one job
   * of all S groups, an executor that finished its groups early would take a slower one's after Spark's
   * locality wait (3 s), and keep it for the run.
   */
  List<List<Integer>> waves(int groups) {
    if (!assignment.isEmpty()) {   // wave w: the w-th group of each executor
      return waves(java.util.stream.IntStream.range(0, assignment.size()).boxed().toList(), 1);
    }
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

  /**
   * The groups {@code which}, of a placement that names each group's executor, in waves of at most {@code slots}
   * per executor (its task slots): wave w holds each executor's w-th {@code slots} of them, in group order, so that
   * every task of a wave starts at once where it is placed rather than waiting for a slot, and going elsewhere after
   * Spark's locality wait.
   */
  List<List<Integer>> waves(java.util.Collection<Integer> which, int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("slots=" + slots + ", expected >= 1");
    }
    Map<String, Integer> seen = new LinkedHashMap<>();
    List<List<Integer>> waves = new ArrayList<>();
    for (int g = 0; g < assignment.size(); g++) {
      if (!which.contains(g)) {
        continue;
      }
      int wave = (seen.merge(assignment.get(g), 1, Integer::sum) - 1) / slots;
      if (wave == waves.size()) {
        waves.add(new ArrayList<>());
      }
      waves.get(wave).add(g);
    }
    return waves;
  }
}
