package org.bitopk.job.run;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.rand;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.bitopk.datasets.Datasets;

/**
 * What the input check of a start or a resume ({@link InputFingerprint}: the CRC32C of every byte of every input
 * file, on the driver) costs, against reading the same bytes without a checksum: on the Fashion-MNIST files and on
 * a Parquet table of about {@code TABLE_GB} GB (784 random floats and a label a row, written once under
 * {@code OUT_DIR}). Prints the median of 5 passes and the first pass apart (the one that may read from disk).
 * Run it through job/bench/input-checksum.sh on an otherwise idle machine.
 */
public final class InputChecksumCost {
  private static final int PASSES = 5;
  private static final int FEATURES = 784;

  private InputChecksumCost() {}

  public static void main(String[] args) throws IOException {
    Path out = new Path(args.length > 0 ? args[0] : "runs/input-checksum");
    double gigabytes = args.length > 1 ? Double.parseDouble(args[1]) : 1;
    Configuration conf = new Configuration();
    measure("Fashion-MNIST (" + Datasets.FASHION_MNIST_DEFAULT + ")", "file://" + Datasets.FASHION_MNIST_DEFAULT,
        conf);
    Path table = new Path(out, String.format(Locale.ROOT, "table-%.1fgb.parquet", gigabytes));
    FileSystem fs = table.getFileSystem(conf);
    if (!fs.exists(new Path(table, "_SUCCESS"))) {
      writeTable(table, gigabytes);
    }
    measure("Parquet table " + table, fs.makeQualified(table).toString(), conf);
  }

  private static void measure(String name, String location, Configuration conf) throws IOException {
    double[] checksum = new double[PASSES];
    double[] plain = new double[PASSES];
    long bytes = 0;
    int files = 0;
    for (int pass = 0; pass < PASSES; pass++) {
      long start = System.nanoTime();
      Map<String, InputFingerprint.InputFile> read = InputFingerprint.of(List.of(location), conf);
      checksum[pass] = (System.nanoTime() - start) / 1e6;
      bytes = read.values().stream().mapToLong(InputFingerprint.InputFile::bytes).sum();
      files = read.size();
      start = System.nanoTime();
      readOnly(read.keySet(), conf);
      plain[pass] = (System.nanoTime() - start) / 1e6;
    }
    System.out.printf(Locale.ROOT, "%s: %d files, %,d bytes%n  CRC32C of every byte: first pass %.1f ms, median"
        + " %.1f ms (%.0f MB/s)%n  reading the bytes alone: first pass %.1f ms, median %.1f ms%n", name, files,
        bytes, checksum[0], median(checksum), bytes / 1e3 / median(checksum), plain[0], median(plain));
  }

  private static void readOnly(Iterable<String> files, Configuration conf) throws IOException {
    byte[] buffer = new byte[1 << 20];
    for (String file : files) {
      Path path = new Path(file);
      try (InputStream in = path.getFileSystem(conf).open(path)) {
        while (in.read(buffer) >= 0) {
          // only the reading is timed
        }
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** Random floats do not compress: about 3.1 KB a row in Parquet. */
  private static void writeTable(Path table, double gigabytes) {
    long rows = (long) (gigabytes * 1e9 / (FEATURES * 4.0));
    SparkSession spark = SparkSession.builder().master("local[2]").appName("input-checksum-table")
        .config("spark.ui.enabled", "false").getOrCreate();
    try {
      List<Column> features = new ArrayList<>();
      for (int i = 0; i < FEATURES; i++) {
        features.add(rand(i).cast("float"));
      }
      spark.range(rows).select(col("id").mod(10).cast("int").as("label"),
              array(features.toArray(new Column[0])).as("pixels"))
          .repartition(8).write().mode(SaveMode.ErrorIfExists).parquet(table.toString());
    } finally {
      spark.stop();
    }
  }
}
