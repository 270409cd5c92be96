package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.job.problem.ObjectiveFactory;

/**
 * Moves the workers' executor-side memories (residuals, momentum) to the driver for a checkpoint, and back
 * onto the executors when a run resumes. Both run one small Spark job over the worker RDD, so each worker's
 * memory is read or written on the executor that runs the worker, as the training rounds do.
 */
final class WorkerMemories {
  private WorkerMemories() {}

  /**
   * @param doneRounds rounds completed: a worker's state is current only if its last round was doneRounds - 1
   */
  static <S> List<WorkerMemory> collect(JavaRDD<S> shards, String runId, ObjectiveFactory<S> factory, int workers,
      int doneRounds) {
    List<WorkerMemory> found = new ArrayList<>(shards.mapPartitions(it -> {
      List<WorkerMemory> out = new ArrayList<>();
      while (it.hasNext()) {
        int worker = factory.workerId(it.next());
        WorkerState state = ExecutorRegistry.run(runId).worker(worker);
        boolean current = state != null && state.lastIteration == doneRounds - 1;
        out.add(new WorkerMemory(worker, current ? state.feedback.residual() : null,
            current && state.velocity != null ? state.velocity.clone() : null));
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
   * Installs the memories on the executors before round {@code firstRound}; a worker whose task later runs
   * elsewhere finds no state and is counted as a lost residual, as after an executor loss.
   */
  static <S> void restore(JavaSparkContext sc, JavaRDD<S> shards, String runId, ObjectiveFactory<S> factory,
      UplinkSettings uplink, List<WorkerMemory> memories, int firstRound) {
    WorkerMemory[] byWorker = memories.toArray(new WorkerMemory[0]);
    Arrays.sort(byWorker, Comparator.comparingInt(WorkerMemory::worker));
    Broadcast<WorkerMemory[]> broadcast = sc.broadcast(byWorker);
    try {
      int dimension = factory.dimension();
      shards.foreachPartition(it -> {
        while (it.hasNext()) {
          int worker = factory.workerId(it.next());
          WorkerMemory memory = broadcast.value()[worker];
          WorkerState state = WorkerState.restored(uplink, worker, dimension, memory.residual(), memory.velocity());
          state.lastIteration = firstRound - 1;
          RunState run = ExecutorRegistry.run(runId);
          run.forgetWorker(worker);
          if (memory.residual() != null || !uplink.errorFeedback()) {
            run.createWorker(worker, () -> state);
          }
        }
      });
    } finally {
      broadcast.destroy();
    }
  }
}
