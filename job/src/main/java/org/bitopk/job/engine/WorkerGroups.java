package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.Partition;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import org.apache.spark.storage.StorageLevel;
import org.bitopk.job.line.ScalaSerializable;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * Packs the P logical workers into S Spark tasks. Spark's per-task cost (scheduling, closure, result), not the
 * workers' compute, dominates a round once P exceeds the task slots; a task that runs several workers one after
 * the other on one replica pays it once.
 *
 * <p>Group g holds the contiguous workers {@code [g·P/S, (g+1)·P/S)}, so the grouping is a pure function of P and
 * S. The grouped RDD is cached itself, one block per group, built on the executor {@link GroupPlacement} gives
 * it: its cached blocks then decide where a group's task runs each round, which keeps each group (and the worker
 * state it leaves on its executor) on one executor, spread over the executors. When the per-worker shards are a
 * recipe rather than a cache (read from the data set's files), a group's block is cut from the files where it is
 * built, and a lost executor's groups are cut again where they run next; shards already cached per worker (a
 * table, data held by the driver) are read from their caches.
 */
final class WorkerGroups {
  private WorkerGroups() {}

  /** First worker of group g of P workers in S groups. */
  static int firstWorker(int group, int workers, int groups) {
    return (int) ((long) group * workers / groups);
  }

  /**
   * @param shards exactly P partitions, partition i holding worker i
   * @param groups S in [1, P]; S = P of shards already cached returns {@code shards} itself (one worker per task)
   */
  static <S> JavaRDD<S> group(JavaRDD<S> shards, int groups, GroupPlacement placement) {
    int workers = shards.getNumPartitions();
    if (groups < 1 || groups > workers) {
      throw new IllegalArgumentException("tasks must be in [1, " + workers + "] (the number of workers), got " + groups);
    }
    if (groups == workers && shards.getStorageLevel().useMemory()) {
      return shards;
    }
    return regroup(shards, groups, placement);
  }

  /**
   * The grouped, cached RDD built where {@code placement} says, even of shards already cached one per worker:
   * how the groups move to other executors ({@link ElasticGroups}).
   */
  static <S> JavaRDD<S> regroup(JavaRDD<S> shards, int groups, GroupPlacement placement) {
    int workers = shards.getNumPartitions();
    RDD<S> grouped = shards.rdd().coalesce(groups, false,
        scala.Option.apply(new Contiguous(placement)), null);
    JavaRDD<S> rdd = new JavaRDD<>(grouped, shards.classTag())
        .setName(workers + " workers in " + groups + " tasks")
        .persist(StorageLevel.MEMORY_ONLY());
    // places every group once, before the first round
    build(rdd, placement, java.util.stream.IntStream.range(0, groups).boxed().toList());
    return rdd;
  }

  /**
   * The groups of {@code grouped} (one cached block per group) placed again as {@code placement} says, unbuilt: a
   * group that stays reads its block from the one on its executor, a moving group fetches it from the executor it
   * leaves (or, when that one is gone, cuts it from the shards again).
   */
  static <S> JavaRDD<S> moved(JavaRDD<S> grouped, GroupPlacement placement) {
    int groups = grouped.getNumPartitions();
    RDD<S> regrouped = grouped.rdd().coalesce(groups, false, scala.Option.apply(new Contiguous(placement)), null);
    return new JavaRDD<>(regrouped, grouped.classTag()).setName(grouped.name()).persist(StorageLevel.MEMORY_ONLY());
  }

  /**
   * The groups of {@code rdd} whose cached block is not on the executor {@code placement} gives them (a block
   * built elsewhere, after Spark's locality wait, would draw the group's tasks away from its workers' states).
   */
  static <S> List<Integer> misplaced(JavaRDD<S> rdd, GroupPlacement placement) {
    List<Integer> out = new ArrayList<>();
    for (int g = 0; g < rdd.getNumPartitions(); g++) {
      String wanted = placement.location(g).getOrElse(() -> null);
      boolean there = false;
      for (org.apache.spark.storage.BlockManagerId id : JavaConverters.seqAsJavaList(org.apache.spark.SparkEnv.get()
          .blockManager().master().getLocations(new org.apache.spark.storage.RDDBlockId(rdd.id(), g)))) {
        there |= new LiveExecutors.Executor(id.executorId(), id.host(), id.port()).location().equals(wanted);
      }
      if (wanted != null && !there) {
        out.add(g);
      }
    }
    return out;
  }

  /** Builds (computes and caches) {@code which} groups of {@code rdd} where {@code placement} says, in its waves. */
  static <S> void build(JavaRDD<S> rdd, GroupPlacement placement, java.util.Collection<Integer> which) {
    for (List<Integer> wave : placement.waves(rdd.getNumPartitions())) {
      List<Object> partitions = new ArrayList<>(wave.stream().filter(which::contains).toList());
      if (!partitions.isEmpty()) {
        rdd.context().runJob(rdd.rdd(), new Count<S>(), JavaConverters.asScalaBuffer(partitions).toSeq(),
            ClassTag$.MODULE$.apply(Long.class));
      }
    }
  }

  /** Contiguous, equal-as-possible groups in partition order. Serializable as CoalescedRDD's Scala check wants. */
  private static final class Contiguous implements PartitionCoalescer, ScalaSerializable {
    private static final long serialVersionUID = 1L;
    /** Used on the driver only (Spark asks for the groups there), so left out of every round's task. */
    private final transient GroupPlacement placement;

    Contiguous(GroupPlacement placement) {
      this.placement = placement;
    }

    @Override
    public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
      Partition[] partitions = parent.partitions();
      int workers = partitions.length;
      PartitionGroup[] out = new PartitionGroup[maxPartitions];
      for (int g = 0; g < maxPartitions; g++) {
        out[g] = new PartitionGroup(placement.location(g));
        for (int i = firstWorker(g, workers, maxPartitions); i < firstWorker(g + 1, workers, maxPartitions); i++) {
          out[g].partitions().$plus$eq(partitions[i]);
        }
      }
      return out;
    }
  }

  /** Reads a group's partition through, which builds and caches its block. A named class: no closure to clean. */
  private static final class Count<S> extends AbstractFunction1<scala.collection.Iterator<S>, Long>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Long apply(scala.collection.Iterator<S> partition) {
      return (long) partition.size();
    }
  }
}
