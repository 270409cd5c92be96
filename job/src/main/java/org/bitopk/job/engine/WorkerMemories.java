package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.TaskContext;
import org.bitopk.job.problem.ObjectiveFactory;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * Moves the workers' executor-side memories (residuals, momentum, compressor state) to the driver for a
 * checkpoint, and back onto the executors when a run resumes. Both run one small Spark job over the grouped
 * worker RDD, so each worker's memory is read or written on the executor that runs the worker, as the training
 * rounds do.
 */
final class WorkerMemories {
  private WorkerMemories() {}

  /**
   * @param doneRounds rounds completed: a worker's state is current only if its last round was doneRounds - 1,
   *     taken by the attempt the driver used ({@code acceptedTokens})
   */
  static <S> List<WorkerMemory> collect(JavaRDD<S> groups, String runId, ObjectiveFactory<S> factory, int workers,
      int doneRounds, long[] acceptedTokens) {
    List<WorkerMemory> found = new ArrayList<>(groups.mapPartitions(it -> {
      List<WorkerMemory> out = new ArrayList<>();
      RunState run = ExecutorRegistry.run(runId);
      while (it.hasNext()) {
        int worker = factory.workerId(it.next());
        synchronized (run.lock(worker)) {
          out.add(current(run, worker, doneRounds, acceptedTokens));
        }
      }
      return out.iterator();
    }).collect());
    found.sort(Comparator.comparingInt(WorkerMemory::worker));
    if (found.size() != workers) {
      throw new IllegalStateException("collected " + found.size() + " worker memories for " + workers + " workers");
    }
    return found;
  }

  /**
   * The worker's memory if its state here is current after {@code doneRounds} rounds (its last round
   * doneRounds − 1, taken by the attempt the driver used), else {@link WorkerMemory#notCollected}; the caller
   * holds the worker's lock.
   */
  private static WorkerMemory current(RunState run, int worker, int doneRounds, long[] acceptedTokens) {
    WorkerState state = run.worker(worker);
    boolean current = state != null && state.round() == doneRounds - 1 && state.token() == acceptedTokens[worker];
    return current ? state.saved(worker) : WorkerMemory.notCollected(worker);
  }

  /**
   * Installs the memories on the executors before round {@code firstRound}; a worker whose task later runs
   * elsewhere finds no state and is counted as a lost residual, as after an executor loss.
   */
  static <S> void restore(JavaSparkContext sc, JavaRDD<S> groups, String runId, ObjectiveFactory<S> factory,
      UplinkSettings uplink, List<WorkerMemory> memories, int firstRound) {
    WorkerMemory[] byWorker = memories.toArray(new WorkerMemory[0]);
    Arrays.sort(byWorker, Comparator.comparingInt(WorkerMemory::worker));
    Broadcast<WorkerMemory[]> broadcast = sc.broadcast(byWorker);
    try {
      int dimension = factory.dimension();
      groups.foreachPartition(it -> {
        RunState run = ExecutorRegistry.run(runId);
        while (it.hasNext()) {
          int worker = factory.workerId(it.next());
          WorkerMemory memory = broadcast.value()[worker];
          synchronized (run.lock(worker)) {
            run.forgetWorker(worker);
            if (memory.residual() != null || !uplink.errorFeedback()) {
              run.putWorker(worker, WorkerState.restored(uplink, dimension, firstRound, memory));
            }
          }
        }
      });
    } finally {
      broadcast.destroy();
    }
  }

  /**
   * The current memories of the workers of groups {@code partitions} (a job of those groups' tasks alone, run
   * where their blocks are): what a re-placement moves when the round before it did not return them (the
   * placement changed after it asked for them). A worker without a current state is
   * {@link WorkerMemory#notCollected}.
   */
  static <S> List<WorkerMemory> collectGroups(JavaRDD<S> groups, List<Integer> partitions, String runId,
      ObjectiveFactory<S> factory, int doneRounds, long[] acceptedTokens) {
    List<WorkerMemory> found = new ArrayList<>();
    Object[] results = (Object[]) groups.context().runJob(groups.rdd(),
        new CollectGroup<S>(runId, factory, doneRounds, acceptedTokens),
        JavaConverters.asScalaBuffer(new ArrayList<Object>(partitions)).toSeq(), ClassTag$.MODULE$.apply(List.class));
    for (Object partition : results) {
      @SuppressWarnings("unchecked")
      List<WorkerMemory> memories = (List<WorkerMemory>) partition;
      found.addAll(memories);
    }
    found.sort(Comparator.comparingInt(WorkerMemory::worker));
    return found;
  }

  /** A group's task of {@link #collectGroups}. A named class: no closure to clean. */
  private static final class CollectGroup<S>
      extends AbstractFunction2<TaskContext, scala.collection.Iterator<S>, List<WorkerMemory>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final String runId;
    private final ObjectiveFactory<S> factory;
    private final int doneRounds;
    private final long[] acceptedTokens;

    CollectGroup(String runId, ObjectiveFactory<S> factory, int doneRounds, long[] acceptedTokens) {
      this.runId = runId;
      this.factory = factory;
      this.doneRounds = doneRounds;
      this.acceptedTokens = acceptedTokens.clone();
    }

    @Override
    public List<WorkerMemory> apply(TaskContext context, scala.collection.Iterator<S> shards) {
      List<WorkerMemory> out = new ArrayList<>();
      RunState run = ExecutorRegistry.run(runId);
      while (shards.hasNext()) {
        int worker = factory.workerId(shards.next());
        synchronized (run.lock(worker)) {
          out.add(current(run, worker, doneRounds, acceptedTokens));
          run.forgetWorker(worker);   // the worker leaves this executor
        }
      }
      return out;
    }
  }
}
