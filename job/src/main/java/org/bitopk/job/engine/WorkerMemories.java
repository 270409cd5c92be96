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
          WorkerState state = run.worker(worker);
          boolean current = state != null && state.round() == doneRounds - 1
              && state.token() == acceptedTokens[worker];
          out.add(current
              ? new WorkerMemory(worker, state.memory.memory(), state.velocity(), state.compressor.saveState())
              : WorkerMemory.notCollected(worker));
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
}
