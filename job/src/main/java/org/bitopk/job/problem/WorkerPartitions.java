package org.bitopk.job.problem;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;

/**
 * Makes a worker RDD cheap to run a job over every iteration, and able to survive a lost executor.
 *
 * <p>An RDD built with {@code parallelize(shards)} keeps its data inside its partition objects, and Spark
 * serializes the partition object into every task: each iteration would ship every shard again. Here each
 * shard is a broadcast of its own, and the RDD is {@code parallelize(0..P-1).map(i -> shard i)}, cached: a task
 * carries an integer and P broadcast handles, and partition i is computed on the executor that runs worker i
 * by fetching only broadcast i. When an executor dies, Spark recomputes the lost partitions from that lineage
 * on whichever executor takes them over (a local checkpoint would instead fail the job: its blocks exist
 * only on the executor that wrote them). Partition i holds exactly shard i, in the order given.
 */
public final class WorkerPartitions {
  private WorkerPartitions() {}

  public static <S> JavaRDD<S> pin(JavaSparkContext sc, List<S> shards) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("need at least one worker shard");
    }
    List<Broadcast<S>> broadcasts = new ArrayList<>(shards.size());
    for (S shard : shards) {
      broadcasts.add(sc.broadcast(shard));
    }
    int workers = shards.size();
    JavaRDD<S> rdd = sc.parallelize(IntStream.range(0, workers).boxed().toList(), workers)
        .map(i -> broadcasts.get(i).value())
        .setName("worker shards (" + workers + " workers)");
    rdd.persist(StorageLevel.MEMORY_AND_DISK());
    rdd.count(); // materialises the cache once, outside the training loop
    return rdd;
  }
}
