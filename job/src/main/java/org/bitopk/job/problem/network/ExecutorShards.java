package org.bitopk.job.problem.network;

import java.io.Serializable;
import java.lang.ref.SoftReference;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.SerializableConfiguration;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.WorkerShard;

/**
 * Worker shards that the executors read from the data set's file system themselves, so that no training data
 * passes through the driver's network link: partition i is worker i's shard, built where it is cached by
 * loading the data set with the same reader as the driver and cutting it with the same {@link ShardSplitter}
 * rules and seed, hence value for value the shard the driver would have cut. A task carries only this recipe
 * (names, the seed) and the Hadoop configuration as a broadcast, fetched once per executor: inside the lineage
 * the configuration would travel with every round's task, since each round's RDD descends from this one. A
 * lost partition is rebuilt from the files the same way.
 *
 * <p>The data directory must therefore be readable from every executor (a shared or distributed file system,
 * or the same local path on every machine), as for table input. An executor JVM loads the data set once for
 * all its partitions (kept softly, so the memory is returned once the shards are cached).
 */
final class ExecutorShards implements AutoCloseable {
  private final JavaRDD<WorkerShard> rdd;
  private final Broadcast<SerializableConfiguration> hadoop;

  private ExecutorShards(JavaRDD<WorkerShard> rdd, Broadcast<SerializableConfiguration> hadoop) {
    this.rdd = rdd;
    this.hadoop = hadoop;
  }

  /** What an executor needs to build any worker's shard. */
  record Recipe(String dataset, String dataPath, int workers, boolean nonIid, long seed,
      Broadcast<SerializableConfiguration> hadoop) implements Serializable {
    Recipe {
      Objects.requireNonNull(dataset, "dataset");
      Objects.requireNonNull(dataPath, "dataPath (empty for the data set's default location)");
    }

    TrainingSetKey key() {
      return new TrainingSetKey(dataset, dataPath);
    }
  }

  /** The cached RDD of {@code workers} partitions, partition i holding worker i's shard; materialised. */
  static ExecutorShards distribute(JavaSparkContext sc, String dataset, String dataPath, int workers,
      boolean nonIid, long seed, String name) {
    Broadcast<SerializableConfiguration> hadoop =
        sc.broadcast(new SerializableConfiguration(sc.hadoopConfiguration()));
    Recipe recipe = new Recipe(dataset, dataPath, workers, nonIid, seed, hadoop);
    List<Integer> ids = java.util.stream.IntStream.range(0, workers).boxed().toList();
    JavaRDD<WorkerShard> rdd = sc.parallelize(ids, workers)
        .mapPartitionsWithIndex(new BuildShard(recipe), true)
        .setName(name)
        .persist(StorageLevel.MEMORY_ONLY());
    rdd.count(); // materialises the cache once, outside the training loop
    return new ExecutorShards(rdd, hadoop);
  }

  JavaRDD<WorkerShard> rdd() {
    return rdd;
  }

  @Override
  public void close() {
    rdd.unpersist(false);
    hadoop.destroy();
  }

  /** Partition i → worker i's shard, cut on the executor from the data set's files. */
  private static final class BuildShard implements Function2<Integer, Iterator<Integer>, Iterator<WorkerShard>> {
    private static final long serialVersionUID = 1L;
    private final Recipe recipe;

    BuildShard(Recipe recipe) {
      this.recipe = recipe;
    }

    @Override
    public Iterator<WorkerShard> call(Integer partition, Iterator<Integer> ids) {
      if (!ids.hasNext() || ids.next().intValue() != partition || ids.hasNext()) {
        throw new IllegalStateException("partition " + partition + " must hold exactly its own worker id");
      }
      LabeledImages train = TrainingSets.load(recipe);
      return List.of(ShardSplitter.shard(train, recipe.workers(), recipe.nonIid(), recipe.seed(), partition))
          .iterator();
    }
  }

  record TrainingSetKey(String dataset, String dataPath) {}

  /** Per executor JVM: the last training set loaded, shared by the tasks that build shards from it. */
  private static final class TrainingSets {
    private static TrainingSetKey lastKey;
    private static SoftReference<LabeledImages> last = new SoftReference<>(null);

    static synchronized LabeledImages load(Recipe recipe) {
      LabeledImages cached = last.get();
      if (cached != null && recipe.key().equals(lastKey)) {
        return cached;
      }
      Configuration conf = recipe.hadoop().value().value();
      LabeledImages train = Datasets.load(recipe.dataset(), recipe.dataPath().isEmpty() ? null : recipe.dataPath(),
          conf).train();
      lastKey = recipe.key();
      last = new SoftReference<>(train);
      return train;
    }
  }
}
