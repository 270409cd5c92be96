package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.spark.api.java.JavaRDD;
import scala.reflect.ClassTag$;

/** A round's Spark job over the worker groups, and the checks of what it returned. */
final class RoundJob {
  /**
   * The Spark local property that names the round t of every job the round waits for (its own and any its
   * boundary runs), in Spark's event log and UI; the background building of groups and the catching up of a
   * joining executor's replicas ({@link ArrivingReplicas}) carry none: they run no worker's step.
   */
  static final String ROUND_PROPERTY = "bitopk.round";

  private RoundJob() {}

  /** The round's Spark job: one report per worker, in worker order, all of round t. */
  static <S> List<WorkerReport> run(JavaRDD<S> groups, WorkerTask<S> task, RunPlan plan, int t, double lr) {
    List<WorkerReport> reports;
    try {
      reports = new ArrayList<>();
      for (Object partition : (Object[]) groups.context().runJob(groups.rdd(), new RoundJobFunction<>(task),
          ClassTag$.MODULE$.apply(List.class))) {
        @SuppressWarnings("unchecked")
        List<WorkerReport> partitionReports = (List<WorkerReport>) partition;
        reports.addAll(partitionReports);
      }
    } catch (Exception failure) {   // Spark throws SparkException, checked in Java's eyes, undeclared
      Optional<String> diverged = Divergence.find(failure);
      if (diverged.isEmpty()) {
        throw failure;
      }
      throw new TrainingDivergedException("training diverged: " + diverged.get() + " (lr " + lr
          + "); no model is written; lower --lr" + plan.divergenceAdvice(), failure);
    }
    reports.sort(Comparator.comparingInt(WorkerReport::workerId));
    if (reports.size() != plan.workers()) {
      throw new IllegalStateException("round " + t + ": " + reports.size() + " worker reports for "
          + plan.workers() + " workers");
    }
    for (int i = 0; i < reports.size(); i++) {
      if (reports.get(i).workerId != i || reports.get(i).iteration != t) {
        throw new IllegalStateException("round " + t + ": unexpected report of worker "
            + reports.get(i).workerId + " for round " + reports.get(i).iteration);
      }
    }
    return reports;
  }
}
