package org.bitopk.job.problem.network;

import java.io.Serializable;
import java.lang.ref.SoftReference;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.Dependency;
import org.apache.spark.Partition;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.WorkerShard;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag$;

/**
 * Worker shards that the executors read from the data set's file system themselves, so that no training data
 * passes through the driver's network link: partition i is worker i's shard, built wherever it is computed by
 * loading the data set with the same reader as the driver and cutting it with the same {@link ShardSplitter}
 * rules and seed, hence value for value the shard the driver would have cut. A task carries only this recipe
 * (names, the seed) and the driver's Hadoop settings ({@link HadoopSettings}) as a broadcast, fetched once per
 * executor: inside the lineage
 * the configuration would travel with every round's task, since each round's RDD descends from this one.
 *
 * <p>The RDD is not cached here: the trainer caches its worker groups, each built from the files on the executor
 * that runs it, so no executor fetches another's shards; a lost group is rebuilt from the files the same way.
 *
 * <p>The data directory must therefore be readable from every executor (a shared or distributed file system,
 * or the same local path on every machine), as for table input. An executor JVM loads the data set once for
 * all its partitions (kept softly, so the memory is returned once the shards are cached).
 */
final class ExecutorShards implements AutoCloseable {
  private final JavaRDD<WorkerShard> rdd;
  private final Broadcast<HadoopSettings> hadoop;

  private ExecutorShards(JavaRDD<WorkerShard> rdd, Broadcast<HadoopSettings> hadoop) {
    this.rdd = rdd;
    this.hadoop = hadoop;
  }

  /** What an executor needs to build any worker's shard. */
  record Recipe(String dataset, String dataPath, int workers, boolean nonIid, long seed,
      Broadcast<HadoopSettings> hadoop) implements Serializable {
    Recipe {
      Objects.requireNonNull(dataset, "dataset");
      Objects.requireNonNull(dataPath, "dataPath (empty for the data set's default location)");
    }

    TrainingSetKey key() {
      return new TrainingSetKey(dataset, dataPath);
    }
  }

  /** The RDD of {@code workers} partitions, partition i building worker i's shard from the files; not cached. */
  static ExecutorShards distribute(JavaSparkContext sc, String dataset, String dataPath, int workers,
      boolean nonIid, long seed, String name) {
    Broadcast<HadoopSettings> hadoop = sc.broadcast(HadoopSettings.of(sc.hadoopConfiguration()));
    Recipe recipe = new Recipe(dataset, dataPath, workers, nonIid, seed, hadoop);
    JavaRDD<WorkerShard> rdd = new JavaRDD<>(new ShardRDD(sc.sc(), recipe), ClassTag$.MODULE$.apply(WorkerShard.class))
        .setName(name);
    return new ExecutorShards(rdd, hadoop);
  }

  JavaRDD<WorkerShard> rdd() {
    return rdd;
  }

  @Override
  public void close() {
    hadoop.destroy();
  }

  /**
   * Partition i → worker i's shard, cut on the executor from the data set's files. An RDD without parents: every
   * round's task binary carries the RDD it runs on, and this one serializes to its recipe, where a
   * {@code parallelize(ids).mapPartitionsWithIndex(f)} lineage added a parent RDD, a dependency and Scala's
   * serialized lambdas, about 2 KB per executor and round.
   */
  private static final class ShardRDD extends RDD<WorkerShard> {
    private static final long serialVersionUID = 1L;
    private final Recipe recipe;

    ShardRDD(SparkContext sc, Recipe recipe) {
      super(sc, JavaConverters.asScalaBuffer(List.<Dependency<?>>of()).toList(),
          ClassTag$.MODULE$.apply(WorkerShard.class));
      this.recipe = recipe;
    }

    @Override
    public scala.collection.Iterator<WorkerShard> compute(Partition split, TaskContext context) {
      LabeledImages train = TrainingSets.load(recipe);
      WorkerShard shard = ShardSplitter.shard(train, recipe.workers(), recipe.nonIid(), recipe.seed(), split.index());
      return JavaConverters.asScalaIterator(List.of(shard).iterator());
    }

    @Override
    public Partition[] getPartitions() {
      Partition[] partitions = new Partition[recipe.workers()];
      for (int i = 0; i < partitions.length; i++) {
        partitions[i] = new WorkerPartition(i);
      }
      return partitions;
    }
  }

  /** Partition i of {@link ShardRDD}: worker i. */
  private record WorkerPartition(int index) implements Partition {}

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
      Configuration conf = recipe.hadoop().value().toConfiguration();
      LabeledImages train = Datasets.load(recipe.dataset(), recipe.dataPath().isEmpty() ? null : recipe.dataPath(),
          conf).train();
      lastKey = recipe.key();
      last = new SoftReference<>(train);
      return train;
    }
  }
}
