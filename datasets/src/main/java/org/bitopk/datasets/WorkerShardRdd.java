package org.bitopk.datasets;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Puts worker shards into Spark with exactly one partition per worker: partition i holds worker i's shard,
 * so "executor task for partition i" means "worker i" and the shard stays where it is cached.
 *
 * <p>Built on {@code parallelize(shards, P)}: Spark slices a list of P elements into P partitions, slice i
 * holding positions {@code [i·P/P, (i+1)·P/P) = {i}} (ParallelCollectionRDD's slicing), and the shards are
 * required to be in worker order. Each element is one compact shard, not one object per example.
 *
 * <p>The shards travel inside the tasks that first compute the partitions (Spark may warn about large task
 * sizes: a Fashion-MNIST shard for P = 10 is about 19 MB), so callers should {@code cache()} or
 * {@code persist()} the RDD and materialise it once, after which every iteration's task finds its shard in
 * the executor's block manager.
 */
public final class WorkerShardRdd {
  private WorkerShardRdd() {}

  /**
   * @throws IllegalArgumentException if {@code shards} is empty or {@code shards.get(i).workerId() != i}
   */
  public static JavaRDD<WorkerShard> create(JavaSparkContext sc, List<WorkerShard> shards) {
    if (sc == null || shards == null || shards.isEmpty()) {
      throw new IllegalArgumentException("need a Spark context and at least one worker shard");
    }
    for (int i = 0; i < shards.size(); i++) {
      WorkerShard shard = shards.get(i);
      if (shard == null || shard.workerId() != i) {
        throw new IllegalArgumentException("shards.get(" + i + ") is worker "
            + (shard == null ? null : shard.workerId()) + ", expected worker " + i
            + ": shards must be listed in worker order 0.." + (shards.size() - 1));
      }
    }
    return sc.parallelize(shards, shards.size()).setName("worker shards (" + shards.size() + " workers)");
  }
}
