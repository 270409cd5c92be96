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
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bitopk.datasets.NormalizationSpec;
import org.bitopk.job.table.InputShape;
import org.bitopk.job.table.TableSource;
import org.jspecify.annotations.Nullable;

/**
 * Training data from a table instead of data set files: a path read with a Spark data source
 * ({@code --data-format parquet|csv|json|orc|libsvm}, or {@code --data FORMAT:PATH}) or a table of the Spark
 * catalog ({@code --table}), plus the columns, shape, test set and normalisation. Immutable; the builder
 * validates each setting and names its flag. The settings only: {@link TableSource} reads the sources.
 */
public final class TableInput {
  /** The data sources a path may be read with. */
  public static final List<String> FORMATS = List.of("parquet", "csv", "json", "orc", "libsvm");
  /** Recorded for runs whose data was a DataFrame handed to Spark ML's fit (not rerunnable from here). */
  static final String DATAFRAME = "dataframe";
  private static final Pattern PREFIXED = Pattern.compile("^(parquet|csv|json|orc|libsvm):(.+)$");

  private final @Nullable String format;
  private final @Nullable String path;
  private final @Nullable String table;
  private final @Nullable String features;
  private final String label;
  private final int @Nullable [] inputShape;
  private final @Nullable String testData;
  private final @Nullable Double testFraction;
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

  /** A path written {@code FORMAT:PATH}: the data source's format and the path. */
  record Prefixed(String format, String path) {}

  /** Splits {@code FORMAT:PATH}; empty when {@code data} has no format prefix. */
  static Optional<Prefixed> splitPrefixed(String data) {
    Matcher m = PREFIXED.matcher(data.trim());
    return m.matches() ? Optional.of(new Prefixed(m.group(1), m.group(2))) : Optional.empty();
  }

  /** The format of a path source, {@value #DATAFRAME} for a DataFrame; empty for a catalog table. */
  public Optional<String> format() {
    return Optional.ofNullable(format);
  }

  /** The path of a path source, null for a catalog table or a DataFrame. */
  public @Nullable String path() {
    return path;
  }

  /** The name of a catalog table, null for a path source or a DataFrame. */
  public @Nullable String table() {
    return table;
  }

  /** The path of {@code --test-data} (without a FORMAT: prefix); empty without one. */
  public Optional<String> testPath() {
    return Optional.ofNullable(testData).map(t -> splitPrefixed(t).map(Prefixed::path).orElse(t));
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
    return TrainSettings.TEST_FRACTION.orDefault(Optional.ofNullable(testFraction));
  }

  /** The training rows' source (not for a DataFrame input, which is handed over in code). */
  public TableSource train() {
    if (isDataFrame()) {
      throw new IllegalStateException("a DataFrame input is passed to TableData directly");
    }
    return table != null ? new TableSource.Catalog(table, flag(TABLE)) : new TableSource.Files(format, path, flag(DATA));
  }

  /**
   * The test rows' source of {@code --test-data}, empty when the test set is held out of the training rows.
   *
   * @throws IllegalArgumentException naming {@code --test-data} when its format is neither given nor the training
   *     data's (a catalog table)
   */
  public Optional<TableSource> test() {
    if (testData == null) {
      return Optional.empty();
    }
    Optional<Prefixed> prefixed = splitPrefixed(testData);
    String testFormat = prefixed.map(Prefixed::format).orElse(format);
    if (testFormat == null) {
      throw new IllegalArgumentException(flag(TEST_DATA) + ": give the format as FORMAT:PATH (the training data is "
          + "a catalog table)");
    }
    return Optional.of(new TableSource.Files(testFormat, prefixed.map(Prefixed::path).orElse(testData),
        flag(TEST_DATA)));
  }

  /** The label column. */
  public String label() {
    return label;
  }

  /** The feature columns' specification of {@code --features}; empty for every column but the label. */
  public Optional<String> features() {
    return Optional.ofNullable(features);
  }

  /** The images' shape (channels, height, width) of {@code --input-shape}; empty for flat features. */
  public Optional<int[]> inputShape() {
    return Optional.ofNullable(inputShape).map(int[]::clone);
  }

  public NormalizationSpec normalization() {
    return normalize;
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
    boolean aboutTheTestData = testData != null && message.contains(testDescription(testData));
    String flag = aboutTheTestData ? flag(TEST_DATA) : table != null ? flag(TABLE) : flag(DATA);
    return new IllegalArgumentException(flag + ": " + message, e);
  }

  /** How the test rows' source of {@code testData} names itself in a data error. */
  private String testDescription(String testData) {
    Optional<Prefixed> prefixed = splitPrefixed(testData);
    return new TableSource.Files(prefixed.map(Prefixed::format).orElse(format),
        prefixed.map(Prefixed::path).orElse(testData), flag(TEST_DATA)).description();
  }

  /** Validating builder: each setter names its flag in the error; a setting not set keeps its default. */
  public static final class Builder {
    private @Nullable String format;
    private @Nullable String path;
    private @Nullable String table;
    private @Nullable String features;
    private String label = TrainSettings.LABEL.defaultValue().orElseThrow();
    private int @Nullable [] inputShape;
    private @Nullable String testData;
    private @Nullable Double testFraction;
    private double featureScale = TrainSettings.FEATURE_SCALE.defaultValue().orElseThrow();
    private String normalizeText = TrainSettings.NORMALIZE.defaultValue().orElseThrow();
    private NormalizationSpec normalize = NormalizationSpec.parse(normalizeText, featureScale);

    private Builder() {}

    /**
     * A path read with a data source: {@code format} one of {@link #FORMATS}.
     *
     * @param path the path as given, null when --data was not: refused, naming the flag
     */
    public Builder path(String format, @Nullable String path) {
      String f = format.trim().toLowerCase(Locale.ROOT);
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
      if (name.isBlank()) {
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

    /** The feature columns; blank: every column but the label. */
    public Builder features(String spec) {
      this.features = spec.isBlank() ? null : spec.trim();
      return this;
    }

    public Builder label(String column) {
      if (column.isBlank()) {
        throw new IllegalArgumentException(flag(LABEL) + ": expected a column name");
      }
      this.label = column.trim();
      return this;
    }

    /** The images' shape, CxHxW; blank: flat features. */
    public Builder inputShape(String shape) {
      this.inputShape = shape.isBlank() ? null : InputShape.parse(shape, flag(INPUT_SHAPE));
      return this;
    }

    /** The test table's path; blank: the test rows are held out of the training rows. */
    public Builder testData(String path) {
      this.testData = path.isBlank() ? null : path.trim();
      return this;
    }

    public Builder testFraction(double fraction) {
      if (!(fraction > 0 && fraction < 1)) {
        throw new IllegalArgumentException(flag(TEST_FRACTION) + ": expected a fraction in (0, 1), got " + fraction);
      }
      this.testFraction = fraction;
      return this;
    }

    public Builder normalize(String spec) {
      this.normalizeText = Objects.requireNonNull(spec, flag(NORMALIZE));
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
