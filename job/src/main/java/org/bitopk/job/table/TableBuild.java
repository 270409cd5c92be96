package org.bitopk.job.table;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.TreeSet;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;
import org.bitopk.datasets.ChannelMoments;
import org.bitopk.datasets.FeatureNormalization;
import org.bitopk.datasets.LabelIndex;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.TableSplit;
import org.bitopk.datasets.WorkerShard;

/**
 * One build of a {@link TableData}: the Spark jobs over the decoded table and the driver's decisions between
 * them (classes, shape, split, normalisation), ending in cached shards and a test set.
 */
final class TableBuild {
  /**
   * What a build made, for {@link TableData} to hold: the cached shards and test set, the broadcasts they are
   * recomputed through, and what the driver decided and counted.
   *
   * @param testHeldOut true when the test rows are held out of the training table (no separate test table)
   */
  record Built(JavaRDD<WorkerShard> shards, JavaRDD<LabeledImages> test, List<Broadcast<?>> broadcasts, int workers,
      int[] shape, LabelIndex labels, FeatureNormalization normalization, long rows, long testRows,
      boolean testHeldOut, long droppedRows, int[] shardSizes, String features) {}

  private final TableRequest r;
  private final JavaSparkContext sc;
  private final List<Broadcast<?>> broadcasts = new ArrayList<>();
  private final List<JavaRDD<?>> temporary = new ArrayList<>();
  /** The table whose files Spark's jobs read now, for the message when they cannot. */
  private String reading;

  TableBuild(TableRequest r) {
    this.r = r;
    this.sc = JavaSparkContext.fromSparkContext(r.train().sparkSession().sparkContext());
  }

  Built run() {
    try {
      return assemble();
    } catch (Exception e) {   // SparkException: checked in Java's eyes, yet not declared (Scala)
      broadcasts.forEach(Broadcast::destroy);
      if (e instanceof IllegalArgumentException bad) {
        throw bad;
      }
      java.util.Optional<String> reason = TableReadFailure.explain(e);
      if (reason.isPresent()) {
        throw new IllegalArgumentException("cannot read " + (reading == null ? r.trainWhere() : reading) + ": "
            + reason.get(), e);
      }
      throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e);
    } finally {
      temporary.forEach(rdd -> rdd.unpersist(false));
    }
  }

  private Built assemble() {
    TableLayout layout = TableLayout.resolve(r.train().schema(), r.label(), r.featureSpec(), r.trainWhere(), r.names());
    JavaRDD<RawBlock> blocks = decode(r.train(), layout, -1, "decoded " + r.trainWhere());
    List<RawBlock.Summary> summaries = blocks.map(new BlockFunctions.Summarize()).collect();
    long[] offsets = offsets(summaries, r.trainWhere());
    int total = Math.toIntExact(offsets[offsets.length - 1]);
    int length = featureLength(summaries, layout, offsets, r.trainWhere());
    int[] shape = shape(length, layout);
    LabelIndex labels = labelIndex(summaries, offsets);

    boolean[] test = null;
    int testCount = 0;
    if (r.testTable() == null) {
      testCount = TableSplit.testCount(total, r.testFraction());
      if (testCount < 1) {
        throw new IllegalArgumentException(r.names().testFraction() + " " + r.testFraction() + " holds out no row of "
            + "the " + total + " in " + r.trainWhere() + "; raise it or pass " + r.names().testData());
      }
      test = TableSplit.testRows(total, testCount, r.seed());
    }
    int trainCount = total - testCount;
    int perWorker = r.nonIid() ? 2 : 1;
    if ((long) r.workers() * perWorker > trainCount) {
      throw new IllegalArgumentException(r.names().workers() + " " + r.workers() + ": " + r.trainWhere() + " has "
          + trainCount + " training example(s)" + (testCount > 0 ? " (after holding out " + testCount
          + " for testing)" : "") + "; every worker needs at least " + perWorker
          + (r.nonIid() ? " (2 label-sorted shards each)" : ""));
    }
    int[] trainLabels = r.nonIid() ? trainLabels(blocks, labels, test, trainCount) : null;
    int[] roles = TableSplit.roles(total, test, r.workers(), r.nonIid(), trainLabels, labels.numClasses(), r.seed());
    int[] sizes = new int[r.workers()];
    long dropped = 0;
    for (int role : roles) {
      if (role >= 0) {
        sizes[role]++;
      } else if (role == TableSplit.DROPPED) {
        dropped++;
      }
    }

    Broadcast<int[]> rolesB = keep(sc.broadcast(roles));
    Broadcast<long[]> offsetsB = keep(sc.broadcast(offsets));
    Broadcast<LabelIndex> labelsB = keep(sc.broadcast(labels));
    int plane = shape[1] * shape[2];
    FeatureNormalization normalization = r.normalization().resolve(shape[0],
        r.normalization().isAuto() ? moments(blocks.map(new BlockFunctions.Moments(rolesB, offsetsB, shape[0], plane,
            r.normalization().featureScale())).collect(), shape[0]) : null, r.names().normalize());
    Broadcast<FeatureNormalization> normB = keep(sc.broadcast(normalization));

    JavaRDD<WorkerShard> shards = blocks
        .flatMapToPair(new BlockFunctions.CutPieces(rolesB, offsetsB, labelsB, normB, shape))
        .partitionBy(new HashPartitioner(r.workers()))
        .mapPartitionsWithIndex(new BlockFunctions.AssembleShard(shape, labels.numClasses()), true)
        .setName("worker shards of " + r.trainWhere() + " (" + r.workers() + " workers)")
        .persist(StorageLevel.MEMORY_ONLY());
    List<Integer> built = shards.map(WorkerShard::workerId).collect();
    if (!built.equals(java.util.stream.IntStream.range(0, r.workers()).boxed().toList())) {
      throw new IllegalStateException("shard partitions hold workers " + built);
    }

    JavaRDD<LabeledImages> testSet;
    long testRows;
    if (r.testTable() == null) {
      testSet = blocks.map(new BlockFunctions.TestBlock(rolesB, offsetsB, labelsB, normB, shape, labels.numClasses()));
      testRows = testCount;
    } else {
      TableLayout testLayout = layout.resolveAgainst(r.testTable().schema(), r.testWhere(), r.names());
      reading = r.testWhere();
      JavaRDD<RawBlock> testBlocks = decode(r.testTable(), testLayout, length, "decoded " + r.testWhere());
      List<RawBlock.Summary> testSummaries = testBlocks.map(new BlockFunctions.Summarize()).collect();
      long[] testOffsets = offsets(testSummaries, r.testWhere());
      testRows = testOffsets[testOffsets.length - 1];
      if (testRows == 0) {
        throw new IllegalArgumentException(r.names().testData() + ": " + r.testWhere() + " has no rows");
      }
      featureLength(testSummaries, testLayout, testOffsets, r.testWhere());
      checkTestLabels(testSummaries, testOffsets, labels);
      testSet = testBlocks.map(new BlockFunctions.TestBlock(null, null, labelsB, normB, shape, labels.numClasses()));
    }
    testSet = testSet.filter(new BlockFunctions.NonEmpty()).setName("test examples of " + r.trainWhere())
        .persist(StorageLevel.MEMORY_ONLY());
    testSet.count();
    return new Built(shards, testSet, List.copyOf(broadcasts), r.workers(), shape, labels, normalization, total,
        testRows, r.testTable() == null, dropped, sizes, layout.describeFeatures());
  }

  /** Merged in partition order, so that the statistics do not depend on which task finished first. */
  private static ChannelMoments moments(List<ChannelMoments> perBlock, int channels) {
    ChannelMoments all = new ChannelMoments(channels);
    perBlock.forEach(all::merge);
    return all;
  }

  private <T> Broadcast<T> keep(Broadcast<T> broadcast) {
    broadcasts.add(broadcast);
    return broadcast;
  }

  private JavaRDD<RawBlock> decode(Dataset<Row> table, TableLayout layout, int expectedLength, String name) {
    org.apache.spark.sql.Column[] columns = Arrays.stream(layout.selectedColumns())
        .map(c -> table.col("`" + c.replace("`", "``") + "`")).toArray(org.apache.spark.sql.Column[]::new);
    JavaRDD<RawBlock> blocks = table.select(columns).javaRDD()
        .mapPartitionsWithIndex(new BlockFunctions.Decode(layout, expectedLength), true)
        .setName(name)
        .persist(StorageLevel.MEMORY_AND_DISK());
    temporary.add(blocks);
    return blocks;
  }

  /** Row offsets of the partitions, last entry = total; fails on the first bad row in table order. */
  private long[] offsets(List<RawBlock.Summary> summaries, String where) {
    long[] offsets = new long[summaries.size() + 1];
    for (int p = 0; p < summaries.size(); p++) {
      RawBlock.Summary s = summaries.get(p);
      if (s.problem != null) {
        throw new IllegalArgumentException("row " + (offsets[p] + s.problemRow + 1) + " of " + where + ": " + s.problem);
      }
      offsets[p + 1] = offsets[p] + s.count;
    }
    long total = offsets[summaries.size()];
    if (total == 0) {
      throw new IllegalArgumentException(where + " has no rows");
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(where + " has " + total + " rows; at most 2^31 - 9 are supported");
    }
    return offsets;
  }

  private int featureLength(List<RawBlock.Summary> summaries, TableLayout layout, long[] offsets, String where) {
    int length = layout.scalarFeatureCount();
    long firstRow = 0;
    for (int p = 0; p < summaries.size(); p++) {
      RawBlock.Summary s = summaries.get(p);
      if (s.count == 0) {
        continue;
      }
      if (length < 0) {
        length = s.featureLength;
        firstRow = offsets[p] + 1;
      } else if (s.featureLength != length) {
        throw new IllegalArgumentException("row " + (offsets[p] + 1) + " of " + where + ": the features have "
            + s.featureLength + " values, expected " + length + (firstRow > 0 ? " (as in row " + firstRow + ")" : ""));
      }
    }
    if (length < 1) {
      throw new IllegalArgumentException(r.names().features() + ": the features of " + where + " ("
          + layout.describeFeatures() + ") are empty");
    }
    return length;
  }

  private int[] shape(int length, TableLayout layout) {
    if (r.inputShape() != null) {
      long values = (long) r.inputShape()[0] * r.inputShape()[1] * r.inputShape()[2];
      if (values != length) {
        throw new IllegalArgumentException(r.names().inputShape() + " " + r.inputShape()[0] + "x" + r.inputShape()[1]
            + "x" + r.inputShape()[2] + " holds " + values + " values, but the features ("
            + layout.describeFeatures() + ") have " + length);
      }
      return r.inputShape().clone();
    }
    return InputShape.infer(length);
  }

  private LabelIndex labelIndex(List<RawBlock.Summary> summaries, long[] offsets) {
    String flag = r.names().label();
    if (summaries.stream().anyMatch(s -> s.tooManyNames)) {
      throw new IllegalArgumentException(flag + ": label column '" + r.label() + "' of " + r.trainWhere()
          + " has more than " + LabelIndex.MAX_CLASSES + " distinct values; is it a class label?");
    }
    if (summaries.stream().anyMatch(s -> s.names != null)) {
      TreeSet<String> all = new TreeSet<>();
      summaries.forEach(s -> {
        if (s.names != null) {
          all.addAll(s.names);
        }
      });
      if (all.size() > LabelIndex.MAX_CLASSES) {
        throw new IllegalArgumentException(flag + ": label column '" + r.label() + "' of " + r.trainWhere()
            + " has " + all.size() + " distinct values; at most " + LabelIndex.MAX_CLASSES + " classes");
      }
      if (r.numClasses() != null && r.numClasses() != all.size()) {
        throw new IllegalArgumentException(flag + ": " + all.size() + " class names in " + r.trainWhere()
            + " but " + r.numClasses() + " classes expected");
      }
      return LabelIndex.names(new ArrayList<>(all));
    }
    checkIntegral(summaries, offsets, r.trainWhere(), OptionalInt.empty());
    double max = Double.NEGATIVE_INFINITY;
    long maxRow = 0;
    for (int p = 0; p < summaries.size(); p++) {
      RawBlock.Summary s = summaries.get(p);
      if (s.count > 0 && s.max > max) {
        max = s.max;
        maxRow = offsets[p] + s.maxRow + 1;
      }
    }
    if (r.numClasses() != null) {
      if (max >= r.numClasses()) {
        throw outOfRange(r.trainWhere(), maxRow, max, "the classes are 0.." + (r.numClasses() - 1));
      }
      return LabelIndex.numeric(r.numClasses());
    }
    if (max >= LabelIndex.MAX_CLASSES) {
      throw outOfRange(r.trainWhere(), maxRow, max, "at most " + LabelIndex.MAX_CLASSES + " classes are supported");
    }
    return LabelIndex.numeric((int) max + 1);
  }

  /** Numeric labels must be integers >= 0 and, when {@code classes} is known (test labels), below it. */
  private void checkIntegral(List<RawBlock.Summary> summaries, long[] offsets, String where, OptionalInt classes) {
    for (int p = 0; p < summaries.size(); p++) {
      RawBlock.Summary s = summaries.get(p);
      if (s.count == 0) {
        continue;
      }
      if (s.fractionalRow >= 0) {
        throw outOfRange(where, offsets[p] + s.fractionalRow + 1, s.fractional, "numeric labels must be class "
            + "indices 0, 1, 2, ... (or use a string column)");
      }
      if (s.min < 0) {
        throw outOfRange(where, offsets[p] + s.minRow + 1, s.min, "numeric labels must be class indices 0, 1, "
            + "2, ...");
      }
      if (classes.isPresent() && s.max >= classes.getAsInt()) {
        throw outOfRange(where, offsets[p] + s.maxRow + 1, s.max, "the training labels are 0.."
            + (classes.getAsInt() - 1));
      }
    }
  }

  private IllegalArgumentException outOfRange(String where, long row, double value, String expected) {
    String shown = value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
        : Double.toString(value);
    return new IllegalArgumentException(r.names().label() + ": label out of range: row " + row + " of " + where
        + " has label " + shown + "; " + expected);
  }

  private void checkTestLabels(List<RawBlock.Summary> summaries, long[] offsets, LabelIndex labels) {
    if (!labels.isNamed()) {
      checkIntegral(summaries, offsets, r.testWhere(), OptionalInt.of(labels.numClasses()));
      return;
    }
    for (RawBlock.Summary s : summaries) {
      if (s.tooManyNames) {
        throw new IllegalArgumentException(r.names().label() + ": label column '" + r.label() + "' of " + r.testWhere()
            + " has more than " + LabelIndex.MAX_CLASSES + " distinct values");
      }
      if (s.names != null) {
        for (String name : s.names) {
          if (labels.index(name) < 0) {
            throw new IllegalArgumentException(r.names().label() + ": label out of range: '" + name + "' in "
                + r.testWhere() + " is not among the " + labels.numClasses() + " training labels "
                + abbreviate(labels.classNames()));
          }
        }
      }
    }
  }

  private int[] trainLabels(JavaRDD<RawBlock> blocks, LabelIndex labels, boolean[] test, int trainCount) {
    Broadcast<LabelIndex> labelsB = keep(sc.broadcast(labels));
    List<int[]> perBlock = blocks.map(new BlockFunctions.LabelsOf(labelsB)).collect();
    int[] out = new int[trainCount];
    int row = 0;
    int n = 0;
    for (int[] block : perBlock) {
      for (int label : block) {
        if (test == null || !test[row]) {
          out[n++] = label;
        }
        row++;
      }
    }
    return out;
  }

  private static String abbreviate(List<String> names) {
    return names.size() <= 10 ? names.toString() : names.subList(0, 10) + "...";
  }
}
