package org.bitopk.job.problem;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.storage.StorageLevel;

/**
 * Makes a worker RDD cheap to run a job over every iteration.
 *
 * <p>An RDD built with {@code parallelize} keeps its data inside its partition objects, and Spark serializes
 * the partition object into every task: without this, each iteration would ship every shard again. Caching
 * plus a local checkpoint replaces the lineage (and those partitions) by references to the cached blocks, so
 * a task carries a few hundred bytes. The price is Spark's documented one for local checkpoints: a lost
 * executor loses its shards, and the job fails instead of recomputing them.
 */
public final class WorkerPartitions {
  private WorkerPartitions() {}

  public static <S> JavaRDD<S> pin(JavaRDD<S> rdd) {
    if (rdd.getStorageLevel().equals(StorageLevel.NONE())) {
      rdd.persist(StorageLevel.MEMORY_AND_DISK());
    }
    rdd.rdd().localCheckpoint();
    rdd.count(); // materialises the cache and the checkpoint once, outside the training loop
    return rdd;
  }
}
