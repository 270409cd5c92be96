package org.bitopk.job.config;

import static org.bitopk.job.config.TrainFlags.DATA;
import static org.bitopk.job.config.TrainFlags.DATA_FORMAT;
import static org.bitopk.job.config.TrainFlags.FEATURE_SCALE;
import static org.bitopk.job.config.TrainFlags.INPUT_SHAPE;
import static org.bitopk.job.config.TrainFlags.LABEL;
import static org.bitopk.job.config.TrainFlags.NORMALIZE;
import static org.bitopk.job.config.TrainFlags.TABLE;
import static org.bitopk.job.config.TrainFlags.TEST_DATA;
import static org.bitopk.job.config.TrainFlags.TEST_FRACTION;
import static org.bitopk.job.config.TrainFlags.flag;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.bitopk.datasets.NormalizationSpec;
import org.bitopk.job.table.InputNames;
import org.bitopk.job.table.JsonColumnOrder;
import org.bitopk.job.table.TableData;
import org.bitopk.job.table.TableReadFailure;

/**
 * Training data from a table instead of data set files: a path read with a Spark data source
 * ({@code --data-format parquet|csv|json|orc|libsvm}, or {@code --data FORMAT:PATH}) or a table of the Spark
 * catalog ({@code --table}), plus the columns, shape, test set and normalisation. Immutable; the builder
 * validates each setting and names its flag.
 */
public final class TableInput {
  /** The data sources a path may be read with. */
  public static final List<String> FORMATS = List.of("parquet", "csv", "json", "orc", "libsvm");
  /** Recorded for runs whose data was a DataFrame handed to Spark ML's fit (not rerunnable from here). */
  static final String DATAFRAME = "dataframe";
  private static final Pattern PREFIXED = Pattern.compile("^(parquet|csv|json|orc|libsvm):(.+)$");

  private final String format;
  private final String path;
  private final String table;
  private final String features;
  private final String label;
  private final int[] inputShape;
  private final String testData;
  private final Double testFraction;
  private final NormalizationSpec normalize;

  private TableInput(Builder b) {
    this.format = b.format;
    this.path = b.path;
    this.table = b.table;
    this.features = b.features;
    this.label = b.label;
    this.inputShape = b.inputShape;
    this.testData = b.testData;
    this.testFraction = b.testFraction;
    this.normalize = b.normalize;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Splits {@code FORMAT:PATH}; null when {@code data} has no format prefix. */
  static String[] splitPrefixed(String data) {
    if (data == null) {
      return null;
    }
    Matcher m = PREFIXED.matcher(data.trim());
    return m.matches() ? new String[] {m.group(1), m.group(2)} : null;
  }

  /** The format of a path source, {@value #DATAFRAME} for a DataFrame, null for a catalog table. */
  public String format() {
    return format;
  }

  public String path() {
    return path;
  }

  public String table() {
    return table;
  }

  /** The path of {@code --test-data} (without a FORMAT: prefix), null without one. */
  public String testPath() {
    String[] prefixed = splitPrefixed(testData);
    return testData == null ? null : prefixed != null ? prefixed[1] : testData;
  }

  public boolean isDataFrame() {
    return DATAFRAME.equals(format);
  }

  /** The settings under their flag names (only those that apply), for config.json. */
  Map<String, Object> toFlags() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(TrainFlags.DATA_FORMAT, format);
    m.put(TrainFlags.TABLE, table);
    m.put(TrainFlags.FEATURES, features);
    m.put(TrainFlags.LABEL, label);
    m.put(TrainFlags.INPUT_SHAPE, inputShape == null ? null : inputShape[0] + "x" + inputShape[1] + "x"
        + inputShape[2]);
    m.put(TrainFlags.TEST_DATA, testData);
    m.put(TrainFlags.TEST_FRACTION, testData == null ? testFraction() : null);
    m.put(TrainFlags.NORMALIZE, normalize.toString());
    m.put(TrainFlags.FEATURE_SCALE, (double) normalize.featureScale());
    return m;
  }

  public double testFraction() {
    return testFraction != null ? testFraction : 0.1;
  }

  /** A table description for messages: {@code "csv file /data/train.csv"} or {@code "table sales.images"}. */
  static String describe(String format, String path, String table) {
    return table != null ? "table " + table : format + " " + path;
  }

  /**
   * Reads the sources (lazily: Spark reads them when the executors decode the rows) and fills a
   * {@link TableData} builder with every setting but workers, split and seed.
   *
   * @throws IllegalArgumentException naming the flag when a source cannot be opened
   */
  public TableData.Builder open(SparkSession spark, InputNames names) {
    if (isDataFrame()) {
      throw new IllegalStateException("a DataFrame input is passed to TableData directly");
    }
    TableData.Builder b = TableData.builder().names(names)
        .train(read(spark, format, path, table, flag(table != null ? TABLE : DATA)), describe(format, path, table))
        .label(label).features(features).inputShape(inputShape).normalization(normalize);
    if (testData != null) {
      String[] prefixed = splitPrefixed(testData);
      String testFormat = prefixed != null ? prefixed[0] : format;
      String testPath = prefixed != null ? prefixed[1] : testData;
      if (testFormat == null) {
        throw new IllegalArgumentException(flag(TEST_DATA) + ": give the format as FORMAT:PATH (the training data is "
            + "a catalog table)");
      }
      b.test(read(spark, testFormat, testPath, null, flag(TEST_DATA)), describe(testFormat, testPath, null));
    } else {
      b.testFraction(testFraction());
    }
    return b;
  }

  /**
   * A data error (a bad row, a label out of range) names the table, not the flag; the command line's one
   * line starts with the flag that named the table.
   */
  public IllegalArgumentException namingTheFlag(IllegalArgumentException e) {
    String message = e.getMessage();
    if (message == null || message.startsWith("--")) {
      return e;
    }
    String[] prefixed = splitPrefixed(testData);
    String test = testData == null ? null : prefixed != null ? describe(prefixed[0], prefixed[1], null)
        : describe(format, testData, null);
    String flag = test != null && message.contains(test) ? flag(TEST_DATA) : table != null ? flag(TABLE) : flag(DATA);
    return new IllegalArgumentException(flag + ": " + message, e);
  }

  private static Dataset<Row> read(SparkSession spark, String format, String path, String table, String flag) {
    try {
      if (table != null) {
        return spark.table(table);
      }
      var reader = spark.read().format(format);
      if (format.equals("csv")) {
        reader = reader.option("header", "true").option("inferSchema", "true");
      }
      Dataset<Row> loaded = reader.load(path);
      return format.equals("json") ? JsonColumnOrder.inFileOrder(loaded, spark.sparkContext().hadoopConfiguration())
          : loaded;
    } catch (Exception e) {   // AnalysisException: checked in Java's eyes, yet not declared (Scala)
      // Spark reads files (Parquet footers, CSV headers) to find the schema; its job's failure wraps the reason
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new IllegalArgumentException(flag + ": cannot read " + describe(format, path, table) + ": "
          + TableReadFailure.explain(e).orElse(message.lines().findFirst().orElse(message)), e);
    }
  }

  /** Validating builder: each setter names its flag in the error. */
  public static final class Builder {
    private String format;
    private String path;
    private String table;
    private String features;
    private String label = "label";
    private int[] inputShape;
    private String testData;
    private Double testFraction;
    private NormalizationSpec normalize = NormalizationSpec.parse("auto", 1);
    private String normalizeText = "auto";
    private double featureScale = 1;

    private Builder() {}

    /** A path read with a data source: {@code format} one of {@link #FORMATS}. */
    public Builder path(String format, String path) {
      String f = format == null ? "" : format.trim().toLowerCase(Locale.ROOT);
      if (!FORMATS.contains(f)) {
        throw new IllegalArgumentException(flag(DATA_FORMAT) + ": unknown format '" + format + "': expected "
            + String.join(", ", FORMATS));
      }
      if (path == null || path.isBlank()) {
        throw new IllegalArgumentException(flag(DATA_FORMAT) + " " + f + ": give the table's path with --data");
      }
      this.format = f;
      this.path = path.trim();
      return this;
    }

    /** A table of the Spark catalog. */
    public Builder table(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(flag(TABLE) + ": expected a table name");
      }
      this.table = name.trim();
      return this;
    }

    /** A DataFrame handed over in code (Spark ML's fit): recorded, not read from here. */
    public Builder dataFrame() {
      this.format = DATAFRAME;
      return this;
    }

    public Builder features(String spec) {
      this.features = spec == null || spec.isBlank() ? null : spec.trim();
      return this;
    }

    public Builder label(String column) {
      if (column != null && column.isBlank()) {
        throw new IllegalArgumentException(flag(LABEL) + ": expected a column name");
      }
      this.label = column == null ? "label" : column.trim();
      return this;
    }

    public Builder inputShape(String shape) {
      this.inputShape = shape == null || shape.isBlank() ? null : TableData.parseShape(shape, flag(INPUT_SHAPE));
      return this;
    }

    public Builder testData(String path) {
      this.testData = path == null || path.isBlank() ? null : path.trim();
      return this;
    }

    public Builder testFraction(Double fraction) {
      if (fraction != null && !(fraction > 0 && fraction < 1)) {
        throw new IllegalArgumentException(flag(TEST_FRACTION) + ": expected a fraction in (0, 1), got " + fraction);
      }
      this.testFraction = fraction;
      return this;
    }

    public Builder normalize(String spec) {
      this.normalizeText = spec == null ? "auto" : spec;
      return this;
    }

    public Builder featureScale(double scale) {
      this.featureScale = scale;
      return this;
    }

    public TableInput build() {
      if (format == null && table == null) {
        throw new IllegalArgumentException("table input needs --data-format (with --data) or --table");
      }
      if (table != null && format != null) {
        throw new IllegalArgumentException(flag(TABLE) + ": reads a catalog table; --data/--data-format cannot be "
            + "given as well");
      }
      if (testData != null && testFraction != null) {
        throw new IllegalArgumentException(flag(TEST_FRACTION) + ": not with --test-data (the test set is either held "
            + "out or given)");
      }
      try {
        NormalizationSpec.parse("auto", featureScale);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(flag(FEATURE_SCALE) + ": " + e.getMessage(), e);
      }
      try {
        normalize = NormalizationSpec.parse(normalizeText, featureScale);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(flag(NORMALIZE) + ": " + e.getMessage(), e);
      }
      return new TableInput(this);
    }
  }
}
