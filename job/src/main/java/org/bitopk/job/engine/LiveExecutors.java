package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.ExecutorAllocationClient;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import scala.collection.JavaConverters;

/**
 * The executors a round can use, as the driver sees them at a round boundary: registered with the scheduler,
 * their block manager registered too, and active, that is neither being decommissioned nor being removed (Spark
 * launches no task on those). An executor Spark has been told to decommission (a standalone Worker that got
 * SIGPWR or the Master's decommission request, YARN or Kubernetes taking a node back, the executor's own
 * SIGPWR) stays registered until its running tasks end, then exits; its workers' states reach the driver through
 * {@link StateHandover} as it stops.
 */
final class LiveExecutors {
  /** One executor: its id, and its block manager's host and port (how a task names its executor). */
  record Executor(String id, String host, int port) {
    /** Spark's executor-cache location, {@code executor_HOST_ID}: where a group is placed. */
    String location() {
      return "executor_" + host + "_" + id;
    }

    String hostPort() {
      return host + ":" + port;
    }
  }

  private final SparkContext sc;
  /** Every executor seen, by block manager address: a departed one is still named by the tasks it ran. */
  private final Map<String, Executor> seen = new ConcurrentHashMap<>();

  LiveExecutors(SparkContext sc) {
    this.sc = sc;
  }

  /** The active executors, sorted by host and id (numerically), the driver's own left out. */
  List<Executor> active() {
    List<Executor> out = new ArrayList<>();
    Set<String> registered = registered();
    for (BlockManagerId id : JavaConverters.asJavaCollection(
        SparkEnv.get().blockManager().master().getMemoryStatus().keys())) {
      if (id.isDriver()) {
        continue;
      }
      Executor executor = new Executor(id.executorId(), id.host(), id.port());
      seen.put(executor.hostPort(), executor);
      if (registered.contains(id.executorId()) && active(id.executorId())) {
        out.add(executor);
      }
    }
    out.sort(Comparator.comparing(Executor::host).thenComparing(e -> e.id().length()).thenComparing(Executor::id));
    return out;
  }

  /** The executor whose block manager is at {@code hostPort}, if it was ever seen. */
  Executor byHostPort(String hostPort) {
    return seen.get(hostPort);
  }

  /** The executors the scheduler knows, active or not. */
  Set<String> registered() {
    return new HashSet<>(JavaConverters.seqAsJavaList(sc.getExecutorIds()));
  }

  private boolean active(String executorId) {
    return !(sc.schedulerBackend() instanceof ExecutorAllocationClient client) || client.isExecutorActive(executorId);
  }
}
