package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.bitopk.job.problem.ObjectiveFactory;

/**
 * The worker groups of one round whose moved workers' states ride with the round's own tasks: partition g of this
 * RDD is partition g of the groups' RDD, and carries the states of the workers that moved to group g's new
 * executor; its task installs them on the executor it runs on, before the round's step reads them, as a resumed
 * run's are ({@link WorkerState#restored}). No Spark job of its own: Spark serializes each task's partition with
 * the task, so a state travels to the executor that computes with it and to no other, and wherever the task runs
 * (a retry on another executor too), the state is there. A group's states larger than {@link #INLINE_BYTES} travel
 * as a broadcast whose handle the partition carries, fetched by that task alone: a task's message is bounded
 * ({@code spark.rpc.message.maxSize}, 128 MB by default), a broadcast is not. Used for the one round after a move;
 * the groups' RDD itself is cached and read through, so the blocks and their executors are the groups' as before.
 */
final class ArrivingStates<S> extends RDD<S> {
  private static final long serialVersionUID = 1L;
  /** Up to this many bytes of states per task travel in the task's partition itself. */
  static final long INLINE_BYTES = 16L << 20;

  private final RDD<S> groups;
  private final scala.reflect.ClassTag<S> tag;
  private final String runId;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final int round;
  /** Per group, what its task carries; transient: they travel in the partitions, not the task binary. */
  private final transient Map<Integer, Partition> carrying;
  private final transient List<Broadcast<ArrayList<WorkerMemory>>> broadcasts;

  private ArrivingStates(JavaRDD<S> groups, String runId, ObjectiveFactory<S> factory, UplinkSettings uplink,
      int round, Map<Integer, Partition> carrying, List<Broadcast<ArrayList<WorkerMemory>>> broadcasts) {
    super(groups.rdd(), groups.classTag());
    this.groups = groups.rdd();
    this.tag = groups.classTag();
    this.runId = runId;
    this.factory = factory;
    this.uplink = uplink;
    this.round = round;
    this.carrying = carrying;
    this.broadcasts = broadcasts;
  }

  /**
   * Round {@code round}'s RDD over {@code groups}, the states in {@code arriving} (per group) installed by the
   * round's tasks as the states before the round; a group's states beyond {@code inlineBytes} in a broadcast.
   */
  static <S> ArrivingStates<S> of(JavaRDD<S> groups, String runId, ObjectiveFactory<S> factory,
      UplinkSettings uplink, int round, Map<Integer, List<WorkerMemory>> arriving, long inlineBytes) {
    Partition[] parents = groups.partitions().toArray(new Partition[0]);
    Map<Integer, Partition> carrying = new HashMap<>();
    List<Broadcast<ArrayList<WorkerMemory>>> broadcasts = new ArrayList<>();
    for (int g = 0; g < parents.length; g++) {
      ArrayList<WorkerMemory> states = new ArrayList<>(arriving.getOrDefault(g, List.of()));
      if (states.stream().mapToLong(WorkerMemory::bytes).sum() <= inlineBytes) {
        carrying.put(g, new Inline(g, parents[g], states));
      } else {
        Broadcast<ArrayList<WorkerMemory>> shared = JavaSparkContext.fromSparkContext(groups.context())
            .broadcast(states);
        broadcasts.add(shared);
        carrying.put(g, new Shared(g, parents[g], shared));
      }
    }
    return new ArrivingStates<>(groups, runId, factory, uplink, round, carrying, broadcasts);
  }

  JavaRDD<S> javaRdd() {
    return new JavaRDD<>(this, tag);
  }

  /** Drops the broadcasts once the round has run. */
  void release() {
    broadcasts.forEach(Broadcast::destroy);
  }

  @Override
  public Partition[] getPartitions() {
    Partition[] out = new Partition[carrying.size()];
    carrying.forEach((g, p) -> out[g] = p);
    return out;
  }

  @Override
  public scala.collection.Iterator<S> compute(Partition split, TaskContext context) {
    Carrying partition = (Carrying) split;
    install(ExecutorRegistry.run(runId), partition.states());
    return groups.iterator(partition.parent(), context);
  }

  /**
   * Installs the states as those before the round, unless one there is already past it (an attempt of a
   * finished round: the state's own admission refuses it). A second attempt of the round on this executor
   * installs them again, as a rolled-back state would be.
   */
  private void install(RunState run, List<WorkerMemory> states) {
    int dimension = factory.dimension();
    for (WorkerMemory memory : states) {
      synchronized (run.lock(memory.worker())) {
        WorkerState present = run.worker(memory.worker());
        if (present == null || present.round() <= round) {
          run.putWorker(memory.worker(), WorkerState.restored(uplink, dimension, round, memory));
        }
      }
    }
  }

  /** Partition g: the groups' partition g and the states its task installs. */
  private sealed interface Carrying extends Partition permits Inline, Shared {
    Partition parent();

    List<WorkerMemory> states();
  }

  /** The states inside the partition. */
  private record Inline(int index, Partition parent, ArrayList<WorkerMemory> states) implements Carrying {}

  /** The states in a broadcast, fetched by the task that installs them. */
  private record Shared(int index, Partition parent, Broadcast<ArrayList<WorkerMemory>> shared) implements Carrying {
    @Override
    public List<WorkerMemory> states() {
      return shared.value();
    }
  }
}
