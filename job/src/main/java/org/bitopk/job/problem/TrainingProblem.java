package org.bitopk.job.problem;

import java.io.IOException;
import java.util.OptionalDouble;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;

/**
 * Driver-side view of what is trained: the worker shards as an RDD (one partition per worker), the
 * replica factory shipped to executors, the initial parameters, and evaluation / saving on the driver.
 */
public interface TrainingProblem<S> extends AutoCloseable {
  /** Short name recorded in the metrics, e.g. {@code fashion-mnist/mlp}. */
  String name();

  int workers();

  /**
   * Exactly one partition per worker; partition i holds worker i's shard. Either cached (shards cut once, e.g. from
   * a table) or a recipe that builds the shard wherever the partition is computed (from the data set's files):
   * the trainer then caches each worker group's shards on the executor that runs the group.
   */
  JavaRDD<S> shards();

  ObjectiveFactory<S> objectiveFactory();

  /** x_0, identical for every mode given the seed. */
  float[] initialParameters();

  /** Rounds per epoch: min over workers of floor(|D_i| / B). */
  int iterationsPerEpoch();

  /** Evaluates x on the held-out set (test loss and accuracy) on the driver. */
  Evaluation evaluate(float[] parameters);

  /** F(x) − F* when the optimum is known (the counterexample); empty otherwise. */
  default OptionalDouble optimalityGap(float[] parameters) {
    return OptionalDouble.empty();
  }

  /** Facts about the data worth recording with the run (config.json's {@code resolved}); none by default. */
  default java.util.Map<String, Object> describe() {
    return java.util.Map.of();
  }

  /** Writes the final model into the run directory; returns the file name written. */
  String saveModel(float[] parameters, FileSystem fs, Path runDirectory) throws IOException;

  @Override
  default void close() {}
}
