package org.bitopk.job.table;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Where a table is read from: a path read with a Spark data source, or a table of the Spark catalog. Reading is
 * lazy (Spark reads the rows when the executors decode them); a source that cannot be opened is refused naming the
 * setting that gave it.
 */
public sealed interface TableSource {

  /** A path read with a Spark data source ({@code parquet}, {@code csv}, {@code json}, {@code orc}, {@code libsvm}). */
  record Files(String format, String path, String setting) implements TableSource {
    @Override
    public String description() {
      return format + " " + path;
    }
  }

  /** A table of the Spark catalog. */
  record Catalog(String name, String setting) implements TableSource {
    @Override
    public String description() {
      return "table " + name;
    }
  }

  /** For messages: {@code "csv /data/train.csv"} or {@code "table sales.images"}. */
  String description();

  /** The setting (a flag, a parameter) that named this source, which a message about it starts with. */
  String setting();

  /**
   * The rows, read lazily; CSV with a header row and inferred types, JSON with its columns in the file's order.
   *
   * @throws IllegalArgumentException naming the setting and the source when Spark cannot open it
   */
  default Dataset<Row> read(SparkSession spark) {
    try {
      if (this instanceof Catalog catalog) {
        return spark.table(catalog.name());
      }
      Files files = (Files) this;
      var reader = spark.read().format(files.format());
      if (files.format().equals("csv")) {
        reader = reader.option("header", "true").option("inferSchema", "true");
      }
      Dataset<Row> loaded = reader.load(files.path());
      return files.format().equals("json")
          ? JsonColumnOrder.inFileOrder(loaded, spark.sparkContext().hadoopConfiguration()) : loaded;
    } catch (Exception e) {   // AnalysisException: checked in Java's eyes, yet not declared (Scala)
      // Spark reads files (Parquet footers, CSV headers) to find the schema; its job's failure wraps the reason
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new IllegalArgumentException(setting() + ": cannot read " + description() + ": "
          + TableReadFailure.explain(e).orElse(message.lines().findFirst().orElse(message)), e);
    }
  }
}
