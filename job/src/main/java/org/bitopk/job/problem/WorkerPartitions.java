package org.bitopk.job.problem;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;

/**
 * Puts one shard per partition into Spark so that a job over them every iteration stays cheap and survives
 * executor loss.
 *
 * <p>{@code parallelize(shards)} would keep the data inside its partition objects, and Spark serializes the
 * partition object into every task: each iteration would ship every shard again. Here each shard is a
 * broadcast; the RDD is {@code parallelize(0..P-1)} mapped to {@code shard[i].value()} and cached. A task
 * then carries a partition holding one integer, and a lost executor's partitions are recomputed from the
 * broadcasts (fetched again from the driver) instead of failing the run.
 */
public final class WorkerPartitions<S> implements AutoCloseable {
  private final List<Broadcast<S>> broadcasts;
  private final JavaRDD<S> rdd;

  private WorkerPartitions(List<Broadcast<S>> broadcasts, JavaRDD<S> rdd) {
    this.broadcasts = broadcasts;
    this.rdd = rdd;
  }

  /** Partition i holds {@code shards.get(i)}; the cache is materialised once here. */
  public static <S> WorkerPartitions<S> distribute(JavaSparkContext sc, List<S> shards, String name) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("need at least one worker shard");
    }
    List<Broadcast<S>> broadcasts = new ArrayList<>();
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < shards.size(); i++) {
      broadcasts.add(sc.broadcast(shards.get(i)));
      ids.add(i);
    }
    JavaRDD<S> rdd = sc.parallelize(ids, ids.size())
        .mapPartitionsWithIndex(new Lookup<>(broadcasts), true)
        .setName(name)
        .persist(StorageLevel.MEMORY_ONLY());
    rdd.count(); // materialises the cache once, outside the training loop
    return new WorkerPartitions<>(broadcasts, rdd);
  }

  public JavaRDD<S> rdd() {
    return rdd;
  }

  @Override
  public void close() {
    rdd.unpersist(false);
    broadcasts.forEach(b -> b.destroy());
  }

  /** Partition i → the value of broadcast i. */
  private static final class Lookup<S> implements Function2<Integer, Iterator<Integer>, Iterator<S>> {
    private static final long serialVersionUID = 1L;
    private final List<Broadcast<S>> broadcasts;

    Lookup(List<Broadcast<S>> broadcasts) {
      this.broadcasts = List.copyOf(broadcasts);
    }

    @Override
    public Iterator<S> call(Integer partition, Iterator<Integer> ids) {
      if (!ids.hasNext() || ids.next().intValue() != partition || ids.hasNext()) {
        throw new IllegalStateException("partition " + partition + " must hold exactly its own worker id");
      }
      return List.of(broadcasts.get(partition).value()).iterator();
    }
  }
}
