package org.bitopk.datasets;

import java.io.Serializable;
import java.util.Random;

/**
 * One worker's part of the training set, in the compact form of {@link LabeledImages}, with the minibatch
 * schedule of the reference runs: each epoch a fresh seeded shuffle of the shard, cut into
 * {@code floor(count / B)} batches of B (the last partial batch is dropped, as with
 * {@code drop_last=True}, so every batch has exactly B examples).
 *
 * <p>Every random choice derives from {@code (seed, workerId, epoch[, batchIndex])}, so any executor that
 * holds the shard produces the same minibatch for the same arguments, in any order, with no state carried
 * between calls (the epoch's order is cached only to avoid recomputing it).
 */
public final class WorkerShard implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final long ORDER_STREAM = 0x6f72646572L;
  private static final long AUGMENT_STREAM = 0x6175676dL;

  private final int workerId;
  private final LabeledImages data;
  private final int[] labelHistogram;
  private transient volatile EpochOrder cachedOrder;

  private WorkerShard(int workerId, LabeledImages data) {
    this.workerId = workerId;
    this.data = data;
    this.labelHistogram = data.labelHistogram();
  }

  /** @throws IllegalArgumentException if workerId is negative, data is null or empty */
  public static WorkerShard of(int workerId, LabeledImages data) {
    if (workerId < 0) {
      throw new IllegalArgumentException("workerId=" + workerId + ", expected >= 0");
    }
    if (data == null || data.count() == 0) {
      throw new IllegalArgumentException("worker " + workerId + " needs at least one example");
    }
    return new WorkerShard(workerId, data);
  }

  public int workerId() {
    return workerId;
  }

  public LabeledImages data() {
    return data;
  }

  /** Examples per label in this shard, indexed by label (a copy). */
  public int[] labelHistogram() {
    return labelHistogram.clone();
  }

  /** {@code floor(count / batchSize)}: the partial last batch is dropped. */
  public int batchesPerEpoch(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize=" + batchSize + ", expected >= 1");
    }
    return data.count() / batchSize;
  }

  /**
   * Batch {@code batchIndex} of epoch {@code epoch}: examples {@code [b·B, (b+1)·B)} of the epoch's seeded
   * permutation of this shard. With {@code augment}, each example is randomly cropped (4-pixel black
   * padding) and horizontally flipped, seeded by {@code (seed, worker, epoch, batchIndex)}.
   *
   * @throws IllegalArgumentException if {@code epoch < 0}, {@code batchSize < 1} or {@code batchIndex} is not
   *     in {@code [0, batchesPerEpoch(batchSize))}
   */
  public Minibatch minibatch(int epoch, int batchIndex, int batchSize, long seed, boolean augment) {
    int batches = batchesPerEpoch(batchSize);
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch=" + epoch + ", expected >= 0");
    }
    if (batches == 0) {
      throw new IllegalArgumentException("batchSize=" + batchSize + " is larger than worker " + workerId
          + "'s shard of " + data.count() + " examples");
    }
    if (batchIndex < 0 || batchIndex >= batches) {
      throw new IllegalArgumentException("batchIndex=" + batchIndex + " for worker " + workerId + " with "
          + data.count() + " examples and batchSize=" + batchSize + ", expected 0.." + (batches - 1));
    }
    int[] order = order(epoch, seed);
    int length = data.featureLength();
    float[] source = data.features();
    int[] sourceLabels = data.labels();
    float[] features = new float[batchSize * length];
    int[] labels = new int[batchSize];
    Random random = augment ? new Random(Seeds.mix(seed, AUGMENT_STREAM, workerId, epoch, batchIndex)) : null;
    float[] blackLevel = augment ? data.blackLevel() : null;
    for (int j = 0; j < batchSize; j++) {
      int example = order[batchIndex * batchSize + j];
      labels[j] = sourceLabels[example];
      if (augment) {
        Augmentation.apply(source, example * length, features, j * length, data.channels(), data.height(),
            data.width(), blackLevel, random);
      } else {
        System.arraycopy(source, example * length, features, j * length, length);
      }
    }
    return Minibatch.of(features, labels, length);
  }

  /**
   * The order of this shard's examples in epoch {@code epoch} (a copy): batch b is examples {@code [b·B, (b+1)·B)}
   * of it. What a framework other than the job reads to train on the same minibatches.
   */
  public int[] epochOrder(int epoch, long seed) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch=" + epoch + ", expected >= 0");
    }
    return order(epoch, seed).clone();
  }

  /** The seeded permutation of this shard for an epoch. */
  int[] order(int epoch, long seed) {
    EpochOrder cached = cachedOrder;
    if (cached != null && cached.epoch == epoch && cached.seed == seed) {
      return cached.order;
    }
    int[] order = Seeds.permutation(data.count(), Seeds.mix(seed, ORDER_STREAM, workerId, epoch));
    cachedOrder = new EpochOrder(epoch, seed, order);
    return order;
  }

  @Override
  public String toString() {
    return "WorkerShard{workerId=" + workerId + ", count=" + data.count() + ", labelHistogram="
        + java.util.Arrays.toString(labelHistogram) + "}";
  }

  private static final class EpochOrder {
    final int epoch;
    final long seed;
    final int[] order;

    EpochOrder(int epoch, long seed, int[] order) {
      this.epoch = epoch;
      this.seed = seed;
      this.order = order;
    }
  }
}
