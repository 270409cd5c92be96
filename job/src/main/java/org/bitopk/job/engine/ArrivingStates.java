package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.bitopk.job.problem.ObjectiveFactory;

/**
 * The worker groups of one round whose moved workers' states ride with the round's own tasks: partition g of this
 * RDD is partition g of the groups' RDD, and carries the states of the workers that moved to group g's new
 * executor; its task installs them on the executor it runs on, before the round's step reads them, as a resumed
 * run's are ({@link WorkerState#restored}). No Spark job of its own: Spark serializes each task's partition with
 * the task, so a state travels to the executor that computes with it and to no other, and wherever the task runs
 * (a retry on another executor too), the state is there. Used for the one round after a move; the groups' RDD
 * itself is cached and read through, so the blocks and their executors are the groups' as before.
 */
final class ArrivingStates<S> extends RDD<S> {
  private static final long serialVersionUID = 1L;

  private final RDD<S> groups;
  private final String runId;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final int round;
  /** Per group, the states its task installs; transient: they travel in the partitions, not the task binary. */
  private final transient Map<Integer, List<WorkerMemory>> arriving;

  private ArrivingStates(JavaRDD<S> groups, String runId, ObjectiveFactory<S> factory, UplinkSettings uplink,
      int round, Map<Integer, List<WorkerMemory>> arriving) {
    super(groups.rdd(), groups.classTag());
    this.groups = groups.rdd();
    this.runId = runId;
    this.factory = factory;
    this.uplink = uplink;
    this.round = round;
    this.arriving = Map.copyOf(arriving);
  }

  /**
   * Round {@code round}'s RDD over {@code groups}, the states in {@code arriving} (per group) installed by the
   * round's tasks as the states before the round.
   */
  static <S> JavaRDD<S> of(JavaRDD<S> groups, String runId, ObjectiveFactory<S> factory, UplinkSettings uplink,
      int round, Map<Integer, List<WorkerMemory>> arriving) {
    return new JavaRDD<>(new ArrivingStates<>(groups, runId, factory, uplink, round, arriving), groups.classTag());
  }

  @Override
  public Partition[] getPartitions() {
    Partition[] parents = groups.partitions();
    Partition[] out = new Partition[parents.length];
    for (int g = 0; g < parents.length; g++) {
      out[g] = new Carrying(g, parents[g], new ArrayList<>(arriving.getOrDefault(g, List.of())));
    }
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
  private record Carrying(int index, Partition parent, ArrayList<WorkerMemory> states) implements Partition {}
}
