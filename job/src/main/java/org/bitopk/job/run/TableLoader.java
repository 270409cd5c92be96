package org.bitopk.job.run;

import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.table.TableData;

/**
 * Reads a table input with Spark (so not in {@link PreparedRun#check}): the executors decode, validate and split it.
 * The settings come resolved (workers, split, seed).
 */
@FunctionalInterface
public interface TableLoader {
  TableData load(JavaSparkContext sc, TrainingConfig config);
}
