package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.TaskContext;
import scala.collection.JavaConverters;
import scala.runtime.AbstractFunction2;

/**
 * The function of a round's job, handed to {@code SparkContext.runJob} as it is. A named, non-synthetic class:
 * Spark's {@code ClosureCleaner} returns at once for it, whereas {@code JavaRDD.mapPartitionsWithIndex(f).collect()}
 * wraps the task in two Scala lambdas that the cleaner inspects with ASM, re-reading {@code JavaRDDLike} and
 * {@code RDD} bytecode on the driver in every round (about two thirds of the driver thread's time at P = 20,
 * on the critical path between jobs). It captures the task alone, whose size {@code ClosureSizeTest} bounds.
 */
final class RoundJobFunction<S>
    extends AbstractFunction2<TaskContext, scala.collection.Iterator<S>, List<WorkerReport>> implements Serializable {
  private static final long serialVersionUID = 1L;

  private final WorkerTask<S> task;

  RoundJobFunction(WorkerTask<S> task) {
    this.task = task;
  }

  @Override
  public List<WorkerReport> apply(TaskContext context, scala.collection.Iterator<S> partition) {
    List<WorkerReport> reports = new ArrayList<>();
    task.call(context.partitionId(), JavaConverters.asJavaIterator(partition)).forEachRemaining(reports::add);
    return reports;
  }
}
