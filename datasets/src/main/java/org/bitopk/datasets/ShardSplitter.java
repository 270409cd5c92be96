package org.bitopk.datasets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits a training set over P workers, deterministically for a seed, the two ways the papers do.
 *
 * <ul>
 *   <li><b>IID</b>: a seeded random permutation cut into P consecutive pieces of {@code floor(n/P)}
 *       examples; the {@code n mod P} examples at the end of the permutation (a uniformly random set) are
 *       dropped so every worker has the same number of rounds per epoch.</li>
 *   <li><b>Non-IID</b> (McMahan et al.'s pathological split, used by Zou et al.: 60,000 MNIST images sorted
 *       by label, 200 shards of 300, 2 per worker for P = 100): {@code n mod 2P} uniformly random examples are
 *       dropped, the rest are sorted by label (stable: ties keep their original order), cut into
 *       {@code 2P} shards of {@code floor(n/2P)}, and worker i gets shards {@code π(2i)} and
 *       {@code π(2i+1)} of a seeded permutation π. When every class count is a multiple of the shard size
 *       (Fashion-MNIST, 6,000 per class, with P = 10, 20, 50 or 100), every shard holds one label and every
 *       worker at most two.</li>
 * </ul>
 * Within a shard, examples keep ascending original index order; {@link WorkerShard#minibatch} shuffles them.
 */
public final class ShardSplitter {
  private static final long IID_STREAM = 0x696964L;
  private static final long DROP_STREAM = 0x64726f70L;
  private static final long SHARD_STREAM = 0x7368617264L;

  private ShardSplitter() {}

  public static List<WorkerShard> iid(LabeledImages data, int workers, long seed) {
    checkArguments(data, workers, 1);
    return build(data, iidIndices(data.count(), workers, seed));
  }

  public static List<WorkerShard> nonIid(LabeledImages data, int workers, long seed) {
    checkArguments(data, workers, 2);
    return build(data, nonIidIndices(data.labels(), data.numClasses(), workers, seed));
  }

  /**
   * Worker {@code worker}'s shard alone, value for value the one {@link #iid} or {@link #nonIid} returns at that
   * index, without copying the other workers' examples: what an executor needs to build its own shard.
   */
  public static WorkerShard shard(LabeledImages data, int workers, boolean nonIid, long seed, int worker) {
    checkArguments(data, workers, nonIid ? 2 : 1);
    if (worker < 0 || worker >= workers) {
      throw new IllegalArgumentException("worker=" + worker + ", expected 0.." + (workers - 1));
    }
    int[][] indices = nonIid ? nonIidIndices(data.labels(), data.numClasses(), workers, seed)
        : iidIndices(data.count(), workers, seed);
    return WorkerShard.of(worker, data.select(indices[worker]));
  }

  /**
   * The number of examples each worker gets from {@link #iid} or {@link #nonIid} for {@code count} examples,
   * without splitting anything: {@code floor(n/P)} each (IID), {@code 2 * floor(n/2P)} each (non-IID).
   *
   * @throws IllegalArgumentException when there are too few examples for {@code workers} workers
   */
  public static int[] shardSizes(int count, int workers, boolean nonIid) {
    int perWorker = nonIid ? 2 : 1;
    if (workers < 1) {
      throw new IllegalArgumentException("workers=" + workers + ", expected >= 1");
    }
    if ((long) workers * perWorker > count) {
      throw new IllegalArgumentException(tooFew(workers, perWorker, count));
    }
    int size = nonIid ? 2 * (count / (2 * workers)) : count / workers;
    int[] sizes = new int[workers];
    Arrays.fill(sizes, size);
    return sizes;
  }

  /** Per worker, its label histogram: {@code result[worker][label]}. */
  public static int[][] labelHistograms(List<WorkerShard> shards) {
    int[][] histograms = new int[shards.size()][];
    for (int i = 0; i < histograms.length; i++) {
      histograms[i] = shards.get(i).labelHistogram();
    }
    return histograms;
  }

  /** Original example indices of each worker's shard, each ascending. */
  static int[][] iidIndices(int count, int workers, long seed) {
    int[] permutation = Seeds.permutation(count, Seeds.mix(seed, IID_STREAM));
    int size = count / workers;
    int[][] indices = new int[workers][];
    for (int w = 0; w < workers; w++) {
      indices[w] = Arrays.copyOfRange(permutation, w * size, (w + 1) * size);
      Arrays.sort(indices[w]);
    }
    return indices;
  }

  static int[][] nonIidIndices(int[] labels, int numClasses, int workers, long seed) {
    int count = labels.length;
    int shards = 2 * workers;
    int shardSize = count / shards;
    boolean[] dropped = new boolean[count];
    int[] dropOrder = Seeds.permutation(count, Seeds.mix(seed, DROP_STREAM));
    for (int i = 0; i < count - shardSize * shards; i++) {
      dropped[dropOrder[i]] = true;
    }
    // Stable counting sort by label of the kept examples.
    int[] start = new int[numClasses + 1];
    for (int i = 0; i < count; i++) {
      if (!dropped[i]) {
        start[labels[i] + 1]++;
      }
    }
    for (int c = 0; c < numClasses; c++) {
      start[c + 1] += start[c];
    }
    int[] sorted = new int[shardSize * shards];
    for (int i = 0; i < count; i++) {
      if (!dropped[i]) {
        sorted[start[labels[i]]++] = i;
      }
    }
    int[] shardOrder = Seeds.permutation(shards, Seeds.mix(seed, SHARD_STREAM));
    int[][] indices = new int[workers][];
    for (int w = 0; w < workers; w++) {
      int[] mine = new int[2 * shardSize];
      System.arraycopy(sorted, shardOrder[2 * w] * shardSize, mine, 0, shardSize);
      System.arraycopy(sorted, shardOrder[2 * w + 1] * shardSize, mine, shardSize, shardSize);
      Arrays.sort(mine);
      indices[w] = mine;
    }
    return indices;
  }

  private static List<WorkerShard> build(LabeledImages data, int[][] indices) {
    List<WorkerShard> shards = new ArrayList<>(indices.length);
    for (int w = 0; w < indices.length; w++) {
      shards.add(WorkerShard.of(w, data.select(indices[w])));
    }
    return List.copyOf(shards);
  }

  private static void checkArguments(LabeledImages data, int workers, int perWorker) {
    if (data == null) {
      throw new IllegalArgumentException("data must not be null");
    }
    if (workers < 1) {
      throw new IllegalArgumentException("workers=" + workers + ", expected >= 1");
    }
    if ((long) workers * perWorker > data.count()) {
      throw new IllegalArgumentException(tooFew(workers, perWorker, data.count()));
    }
  }

  private static String tooFew(int workers, int perWorker, int count) {
    return "workers=" + workers + " needs at least " + perWorker + " example(s) per worker"
        + (perWorker == 2 ? " (2 label-sorted shards each)" : "") + ", but the data has only " + count + " examples";
  }
}
