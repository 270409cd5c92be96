package org.bitopk.job.table;

import java.util.Arrays;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.bitopk.datasets.FeatureNormalization;
import org.bitopk.datasets.LabelIndex;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.NormalizationSpec;
import org.bitopk.datasets.TableSplit;
import org.bitopk.datasets.WorkerShard;
import org.jspecify.annotations.Nullable;

/**
 * A table (any Spark {@code DataFrame}) turned into worker shards and a test set by the executors: the
 * rows are decoded where Spark reads them, the driver sees only per-partition summaries (counts, label
 * ranges, the first bad row) and decides classes, shape, split and normalisation, and the shards are cut,
 * normalised and shuffled into one partition per worker on the executors, then cached.
 *
 * <p>What the driver holds: 4 bytes per row for the split table (and, for the non-IID split, 4 bytes per
 * training row for the labels it sorts), never the features. Everything stays recomputable: after the
 * build the decoded table is uncached, and a lost shard partition is rebuilt from the source through the
 * same broadcast split, labels and normalisation, which stay alive until {@link #close()}.
 *
 * <p>Rows are numbered in the order Spark reads them (deterministic for the same files). The split applies
 * {@link ShardSplitter}'s rules to the training rows in that order, so a table holding an IDX file's
 * examples in file order gives the shards of the file, value for value.
 */
public final class TableData implements AutoCloseable {
  /** What the build made; this class reads it out and releases it. */
  private final TableBuild.Built built;
  private boolean closed;

  private TableData(TableBuild.Built built) {
    this.built = built;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Cached, exactly one partition per worker; partition i holds worker i's shard. */
  public JavaRDD<WorkerShard> shards() {
    return built.shards();
  }

  /** Cached test examples, normalised like the training examples, in blocks (one per source partition). */
  public JavaRDD<LabeledImages> test() {
    return built.test();
  }

  public int workers() {
    return built.workers();
  }

  public int channels() {
    return built.shape()[0];
  }

  public int height() {
    return built.shape()[1];
  }

  public int width() {
    return built.shape()[2];
  }

  public LabelIndex labels() {
    return built.labels();
  }

  public FeatureNormalization normalization() {
    return built.normalization();
  }

  /** Rows of the training table (including those held out by a test fraction). */
  public long rows() {
    return built.rows();
  }

  public long testRows() {
    return built.testRows();
  }

  /** Rows of the training table that are not held out for testing (all of them with a test table). */
  public long trainRows() {
    return built.testHeldOut() ? built.rows() - built.testRows() : built.rows();
  }

  /** Training rows left out so that every worker has equally many (IID) or 2 equal shards (non-IID). */
  public long droppedRows() {
    return built.droppedRows();
  }

  /** Examples of each worker's shard. */
  public int[] shardSizes() {
    return built.shardSizes().clone();
  }

  /** The feature columns, for the record. */
  public String features() {
    return built.features();
  }

  /** Uncaches the shards and the test set and destroys the broadcasts; a second call does nothing. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    built.shards().unpersist(false);
    built.test().unpersist(false);
    for (Broadcast<?> b : built.broadcasts()) {
      b.destroy();
    }
  }

  /** Validating builder; {@link #build()} runs the Spark jobs. */
  public static final class Builder {
    Dataset<Row> train;
    String trainWhere;
    Dataset<Row> testTable;
    String testWhere;
    double testFraction = 0.1;
    String label = "label";
    String featureSpec;
    int[] inputShape;
    NormalizationSpec normalization = NormalizationSpec.parse("auto", 1);
    int workers = 1;
    boolean nonIid;
    long seed;
    Integer numClasses;
    InputNames names = InputNames.COMMAND_LINE;

    private Builder() {}

    /** @param where names the table in messages, e.g. {@code "csv file:/data/train.csv"} */
    public Builder train(Dataset<Row> table, String where) {
      this.train = java.util.Objects.requireNonNull(table, "table");
      this.trainWhere = where;
      return this;
    }

    /** A separate test table with the same columns; without one, {@link #testFraction} of the rows. */
    public Builder test(Dataset<Row> table, String where) {
      this.testTable = table;
      this.testWhere = where;
      return this;
    }

    public Builder testFraction(double fraction) {
      if (!(fraction > 0 && fraction < 1)) {
        throw new IllegalArgumentException(names.testFraction() + ": expected a fraction in (0, 1), got "
            + fraction);
      }
      this.testFraction = fraction;
      return this;
    }

    public Builder label(String column) {
      this.label = column == null || column.isBlank() ? "label" : column.trim();
      return this;
    }

    /** See {@link TableLayout}; null or empty: every column but the label. */
    public Builder features(String spec) {
      this.featureSpec = spec;
      return this;
    }

    /** @param shape {channels, height, width}, or null to infer it from the feature count */
    public Builder inputShape(int @Nullable [] shape) {
      if (shape != null && (shape.length != 3 || shape[0] < 1 || shape[1] < 1 || shape[2] < 1)) {
        throw new IllegalArgumentException(names.inputShape() + ": expected CxHxW with positive sizes, got "
            + Arrays.toString(shape));
      }
      this.inputShape = shape == null ? null : shape.clone();
      return this;
    }

    public Builder normalization(NormalizationSpec spec) {
      this.normalization = java.util.Objects.requireNonNull(spec, "normalization");
      return this;
    }

    public Builder workers(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException(names.workers() + ": expected >= 1, got " + workers);
      }
      this.workers = workers;
      return this;
    }

    public Builder nonIid(boolean nonIid) {
      this.nonIid = nonIid;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Number of classes when known beforehand (e.g. from StringIndexer's metadata); else max label + 1. */
    public Builder numClasses(Integer numClasses) {
      if (numClasses != null && (numClasses < 1 || numClasses > LabelIndex.MAX_CLASSES)) {
        throw new IllegalArgumentException("number of classes must be in [1, " + LabelIndex.MAX_CLASSES + "], got "
            + numClasses);
      }
      this.numClasses = numClasses;
      return this;
    }

    public Builder names(InputNames names) {
      this.names = java.util.Objects.requireNonNull(names, "names");
      return this;
    }

    /**
     * Reads and validates the table, splits it, and caches the shards and the test set.
     *
     * @throws IllegalArgumentException in one line for bad columns, rows, labels, shapes or sizes
     */
    public TableData build() {
      if (train == null) {
        throw new IllegalStateException("train(table, where) was not called");
      }
      return new TableData(new TableBuild(new TableRequest(train, trainWhere, testTable, testWhere, testFraction,
          label, featureSpec, inputShape, normalization, workers, nonIid, seed, numClasses, names)).run());
    }
  }

  /**
   * The rows (0-based, ascending, in the order Spark reads the table) that a test fraction holds out: the
   * first {@code round(fraction · total)} entries of a permutation seeded by {@code seed}.
   */
  public static int[] testRows(int total, double fraction, long seed) {
    boolean[] test = TableSplit.testRows(total, TableSplit.testCount(total, fraction), seed);
    return java.util.stream.IntStream.range(0, total).filter(i -> test[i]).toArray();
  }
}
