package org.bitopk.job.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.bitopk.datasets.ChannelMoments;
import org.bitopk.datasets.FeatureNormalization;
import org.bitopk.datasets.LabelIndex;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.TableSplit;
import org.bitopk.datasets.WorkerShard;
import scala.Tuple2;

/**
 * The functions the executors run over the table's decoded blocks, each a class of its own that captures only
 * what it declares (Spark serializes it with its fields).
 */
final class BlockFunctions {
  private BlockFunctions() {}

  static final class Decode implements Function2<Integer, Iterator<Row>, Iterator<RawBlock>> {
    private static final long serialVersionUID = 1L;
    private final TableLayout layout;
    private final int expectedLength;

    Decode(TableLayout layout, int expectedLength) {
      this.layout = layout;
      this.expectedLength = expectedLength;
    }

    @Override
    public Iterator<RawBlock> call(Integer partition, Iterator<Row> rows) {
      return List.of(RawBlock.decode(partition, rows, layout, expectedLength)).iterator();
    }
  }

  static final class Summarize implements Function<RawBlock, RawBlock.Summary> {
    private static final long serialVersionUID = 1L;

    @Override
    public RawBlock.Summary call(RawBlock block) {
      return block.summary();
    }
  }

  static final class NonEmpty implements Function<LabeledImages, Boolean> {
    private static final long serialVersionUID = 1L;

    @Override
    public Boolean call(LabeledImages images) {
      return images.count() > 0;
    }
  }

  static int labelOf(RawBlock block, int i, LabelIndex labels) {
    int label = block.stringLabels != null ? labels.index(block.stringLabels[i]) : labels.index(block.numericLabels[i]);
    if (label < 0) {
      throw new IllegalStateException("row " + i + " of partition " + block.partition + " has a label outside "
          + labels + " although the summaries were checked");
    }
    return label;
  }

  static final class LabelsOf implements Function<RawBlock, int[]> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<LabelIndex> labels;

    LabelsOf(Broadcast<LabelIndex> labels) {
      this.labels = labels;
    }

    @Override
    public int[] call(RawBlock block) {
      LabelIndex index = labels.value();
      int[] out = new int[block.count];
      for (int i = 0; i < out.length; i++) {
        out[i] = labelOf(block, i, index);
      }
      return out;
    }
  }

  /** Per-channel moments of {@code x / scale} over the block's training rows. */
  static final class Moments implements Function<RawBlock, ChannelMoments> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<int[]> roles;
    private final Broadcast<long[]> offsets;
    private final int channels;
    private final int plane;
    private final float scale;

    Moments(Broadcast<int[]> roles, Broadcast<long[]> offsets, int channels, int plane, float scale) {
      this.roles = roles;
      this.offsets = offsets;
      this.channels = channels;
      this.plane = plane;
      this.scale = scale;
    }

    @Override
    public ChannelMoments call(RawBlock block) {
      int[] role = roles.value();
      int first = (int) offsets.value()[block.partition];
      ChannelMoments moments = new ChannelMoments(channels);
      int length = channels * plane;
      for (int i = 0; i < block.count; i++) {
        if (role[first + i] == TableSplit.TEST) {
          continue;
        }
        for (int c = 0; c < channels; c++) {
          int from = i * length + c * plane;
          for (int j = 0; j < plane; j++) {
            moments.add(c, block.features[from + j] / scale);
          }
        }
      }
      return moments;
    }
  }

  /** A block's rows grouped by owning worker, normalised and labelled. */
  static final class CutPieces implements PairFlatMapFunction<RawBlock, Integer, ShardPiece> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<int[]> roles;
    private final Broadcast<long[]> offsets;
    private final Broadcast<LabelIndex> labels;
    private final Broadcast<FeatureNormalization> normalization;
    private final int[] shape;

    CutPieces(Broadcast<int[]> roles, Broadcast<long[]> offsets, Broadcast<LabelIndex> labels,
        Broadcast<FeatureNormalization> normalization, int[] shape) {
      this.roles = roles;
      this.offsets = offsets;
      this.labels = labels;
      this.normalization = normalization;
      this.shape = shape.clone();
    }

    @Override
    public Iterator<Tuple2<Integer, ShardPiece>> call(RawBlock block) {
      int[] role = roles.value();
      int first = (int) offsets.value()[block.partition];
      java.util.Map<Integer, List<Integer>> byWorker = new java.util.TreeMap<>();
      for (int i = 0; i < block.count; i++) {
        int w = role[first + i];
        if (w >= 0) {
          byWorker.computeIfAbsent(w, k -> new ArrayList<>()).add(i);
        }
      }
      LabelIndex index = labels.value();
      FeatureNormalization norm = normalization.value();
      int length = block.featureLength;
      int plane = shape[1] * shape[2];
      List<Tuple2<Integer, ShardPiece>> out = new ArrayList<>();
      for (var entry : byWorker.entrySet()) {
        List<Integer> local = entry.getValue();
        int[] rows = new int[local.size()];
        int[] pieceLabels = new int[local.size()];
        float[] features = new float[local.size() * length];
        for (int k = 0; k < rows.length; k++) {
          int i = local.get(k);
          rows[k] = first + i;
          pieceLabels[k] = labelOf(block, i, index);
          norm.apply(block.features, i * length, features, k * length, 1, plane);
        }
        out.add(new Tuple2<>(entry.getKey(), new ShardPiece(rows, features, pieceLabels)));
      }
      return out.iterator();
    }
  }

  /** Partition w: worker w's pieces in row order, as one shard. */
  static final class AssembleShard
      implements Function2<Integer, Iterator<Tuple2<Integer, ShardPiece>>, Iterator<WorkerShard>> {
    private static final long serialVersionUID = 1L;
    private final int[] shape;
    private final int classes;

    AssembleShard(int[] shape, int classes) {
      this.shape = shape.clone();
      this.classes = classes;
    }

    @Override
    public Iterator<WorkerShard> call(Integer worker, Iterator<Tuple2<Integer, ShardPiece>> pieces) {
      List<ShardPiece> list = new ArrayList<>();
      int count = 0;
      while (pieces.hasNext()) {
        Tuple2<Integer, ShardPiece> t = pieces.next();
        if (t._1().intValue() != worker) {
          throw new IllegalStateException("piece of worker " + t._1() + " in partition " + worker);
        }
        list.add(t._2());
        count += t._2().rows.length;
      }
      list.sort(Comparator.comparingInt(p -> p.rows[0]));
      int length = shape[0] * shape[1] * shape[2];
      float[] features = new float[Math.multiplyExact(count, length)];
      int[] labels = new int[count];
      int n = 0;
      int last = -1;
      for (ShardPiece p : list) {
        if (p.rows[0] <= last) {
          throw new IllegalStateException("pieces of worker " + worker + " overlap at row " + p.rows[0]);
        }
        last = p.rows[p.rows.length - 1];
        System.arraycopy(p.features, 0, features, n * length, p.features.length);
        System.arraycopy(p.labels, 0, labels, n, p.labels.length);
        n += p.rows.length;
      }
      LabeledImages data = LabeledImages.of(features, labels, shape[0], shape[1], shape[2], classes);
      return List.of(WorkerShard.of(worker, data)).iterator();
    }
  }

  /** A block's test rows (all of them when {@code roles} is null), normalised and labelled. */
  static final class TestBlock implements Function<RawBlock, LabeledImages> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<int[]> roles;
    private final Broadcast<long[]> offsets;
    private final Broadcast<LabelIndex> labels;
    private final Broadcast<FeatureNormalization> normalization;
    private final int[] shape;
    private final int classes;

    TestBlock(Broadcast<int[]> roles, Broadcast<long[]> offsets, Broadcast<LabelIndex> labels,
        Broadcast<FeatureNormalization> normalization, int[] shape, int classes) {
      this.roles = roles;
      this.offsets = offsets;
      this.labels = labels;
      this.normalization = normalization;
      this.shape = shape.clone();
      this.classes = classes;
    }

    @Override
    public LabeledImages call(RawBlock block) {
      int[] role = roles == null ? null : roles.value();
      int first = roles == null ? 0 : (int) offsets.value()[block.partition];
      int n = 0;
      for (int i = 0; i < block.count; i++) {
        if (role == null || role[first + i] == TableSplit.TEST) {
          n++;
        }
      }
      LabelIndex index = labels.value();
      FeatureNormalization norm = normalization.value();
      int length = shape[0] * shape[1] * shape[2];
      int plane = shape[1] * shape[2];
      float[] features = new float[n * length];
      int[] out = new int[n];
      int k = 0;
      for (int i = 0; i < block.count; i++) {
        if (role == null || role[first + i] == TableSplit.TEST) {
          out[k] = labelOf(block, i, index);
          norm.apply(block.features, i * length, features, k * length, 1, plane);
          k++;
        }
      }
      return LabeledImages.of(features, out, shape[0], shape[1], shape[2], classes);
    }
  }
}
