package org.bitopk.job.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockManagerAdded;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.storage.BlockManagerId;
import scala.collection.JavaConverters;

/**
 * How many rounds an executor that registered during the run took to work: an executor that registered during
 * round r (after round r started on the driver and before round r + 1 did, by the registration's own time, so a
 * late delivery of Spark's event changes nothing) and first ran one of the run's workers in round w took
 * w − r rounds ({@link #firstWork}). Executors registered before the run's first round are not counted.
 */
final class ExecutorArrivals {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ExecutorArrivals.class);
  /** Round starts kept to date a registration by; an event older than these is dated by the oldest. */
  private static final int ROUND_STARTS_KEPT = 4096;

  /** An executor's first round with work: it registered during round {@code registered}, worked in {@code worked}. */
  record FirstWork(String executorId, int registered, int worked) {
    int rounds() {
      return worked - registered;
    }
  }

  private final SparkContext sc;
  private final long startMillis = System.currentTimeMillis();
  /** (wall-clock millisecond, round) of the latest round starts, oldest first. */
  private final ArrayDeque<long[]> roundStarts = new ArrayDeque<>();
  /** Per executor id that registered during the run, the round it registered during. */
  private final Map<String, Integer> registered = new ConcurrentHashMap<>();
  /** Per executor id that registered while this listened, its cores. */
  private final Map<String, Integer> cores = new ConcurrentHashMap<>();
  /** Block manager address (how a worker's report names its executor) to executor id. */
  private final Map<String, String> ids = new ConcurrentHashMap<>();
  /** Executors whose first work was seen, by block manager address. */
  private final Set<String> working = new HashSet<>();
  private final SparkListener listener = new SparkListener() {
    @Override
    public void onExecutorAdded(SparkListenerExecutorAdded added) {
      cores.put(added.executorId(), added.executorInfo().totalCores());
      if (added.time() < startMillis) {
        return;   // registered before the run
      }
      int round = roundAt(added.time());
      registered.put(added.executorId(), round);
      LOG.info("executor {} on {} registered during round {}", added.executorId(), added.executorInfo().executorHost(),
          round);
    }

    @Override
    public void onBlockManagerAdded(SparkListenerBlockManagerAdded added) {
      ids.put(added.blockManagerId().hostPort(), added.blockManagerId().executorId());
    }
  };

  /** Starts listening before round {@code firstRound}. */
  ExecutorArrivals(SparkContext sc, int firstRound) {
    this.sc = sc;
    roundStarts.add(new long[] {startMillis, firstRound});
    sc.addSparkListener(listener);
  }

  /**
   * How many of the run's tasks executor {@code executorId} runs at a time: its cores over {@code spark.task.cpus};
   * 1 for an executor that registered before the run (its cores were not seen).
   */
  int slots(String executorId) {
    Integer total = cores.get(executorId);
    int perTask = sc.conf().getInt("spark.task.cpus", 1);
    return total == null ? 1 : Math.max(1, total / Math.max(1, perTask));
  }

  /** Round {@code t} starts now. */
  void roundStarts(int t) {
    synchronized (roundStarts) {
      roundStarts.addLast(new long[] {System.currentTimeMillis(), t});
      if (roundStarts.size() > ROUND_STARTS_KEPT) {
        roundStarts.removeFirst();
      }
    }
  }

  /** The round running at wall-clock millisecond {@code time}. */
  private int roundAt(long time) {
    synchronized (roundStarts) {
      int round = (int) roundStarts.peekFirst()[1];
      for (long[] start : roundStarts) {
        if (start[0] <= time) {
          round = (int) start[1];
        }
      }
      return round;
    }
  }

  /**
   * The executors that registered during the run and worked for the first time in round {@code t}, whose workers
   * ran on {@code executors} (block manager addresses, as the reports name them).
   */
  List<FirstWork> firstWork(int t, Iterable<String> executors) {
    List<FirstWork> out = new ArrayList<>();
    for (String hostPort : executors) {
      if (working.contains(hostPort)) {
        continue;
      }
      String id = ids.computeIfAbsent(hostPort, ExecutorArrivals::registeredId);
      if (id == null) {
        continue;   // gone already, or not an executor's block manager
      }
      working.add(hostPort);
      Integer round = registered.get(id);
      if (round != null) {
        out.add(new FirstWork(id, round, t));
        LOG.info("executor {} works from round {}, {} round(s) after it registered during round {}", id, t,
            t - round, round);
      }
    }
    return out;
  }

  /** The id of the executor whose block manager is at {@code hostPort}, asked of the driver's block manager master. */
  private static String registeredId(String hostPort) {
    for (BlockManagerId id : JavaConverters.asJavaCollection(
        SparkEnv.get().blockManager().master().getMemoryStatus().keys())) {
      if (id.hostPort().equals(hostPort)) {
        return id.executorId();
      }
    }
    return null;
  }

  void release() {
    sc.removeSparkListener(listener);
  }
}
