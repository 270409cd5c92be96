package org.bitopk.job.table;

import java.io.FileNotFoundException;
import java.nio.file.AccessDeniedException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.ChecksumException;

/**
 * Why Spark could not read a table's files, in one line. Spark reports a file it cannot read as "Job aborted due
 * to stage failure … SparkException: Exception thrown in awaitResult:" and wraps the reason several times; the
 * reason (a 0-byte or foreign Parquet file, a stale {@code .crc} beside a file, an unreadable file, a libsvm
 * line with index 0) is the innermost cause, and the file is named by one of the wrappers.
 */
public final class TableReadFailure {
  /** Spark's wrappers that name the file they were reading. */
  private static final Pattern NAMED_FILE = Pattern.compile(
      "(?:while reading file|footer for file:|reading file) (\\S+?)\\.?(?:\\s|$)");

  /** A file's URI in a message, e.g. {@code file:/data/part-1.parquet}. */
  private static final Pattern FILE_URI = Pattern.compile("\\b(?:file|hdfs|s3a|gs|abfss?|wasbs?):/\\S+");
  /** Failures of the cluster, not of the files, even while Spark reads them. */
  private static final Pattern CLUSTER_FAILURE = Pattern.compile("ExecutorLostFailure|OutOfMemory|cancelled|"
      + "FetchFailed|SparkContext was shut down");

  private TableReadFailure() {}

  /**
   * The reason {@code failure} (thrown by a Spark job reading a table) gives, naming the file, when the files
   * are at fault; empty when the failure is not about the data (a lost executor, a cancelled job).
   */
  public static Optional<String> explain(Throwable failure) {
    Optional<String> tooWide = csvColumnLimit(failure);
    if (tooWide.isPresent()) {
      return tooWide;
    }
    String file = null;
    Throwable deepest = failure;
    boolean aboutTheData = false;
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      String message = t.getMessage() == null ? "" : t.getMessage();
      Matcher m = NAMED_FILE.matcher(message);
      if (file == null && m.find()) {
        file = m.group(1);
        aboutTheData = true;
      }
      if (t instanceof FileNotFoundException || t instanceof AccessDeniedException || t instanceof ChecksumException
          || t instanceof IllegalArgumentException || message.contains("FileNotFoundException")
          || (t.getCause() == null && FILE_URI.matcher(message).find())) {
        aboutTheData = true;   // the innermost cause names a file: a reader refused it (e.g. "is not a Parquet file")
      }
      deepest = t;
    }
    boolean unreadableType = unknownLogicalType(failure) || refusedParquetType(failure);
    if (!unreadableType && (!aboutTheData || CLUSTER_FAILURE.matcher(String.valueOf(failure.getMessage())).find())) {
      return Optional.empty();
    }
    String reason = unreadableType ? "a column has a Parquet logical type that Spark "
        + org.apache.spark.package$.MODULE$.SPARK_VERSION() + " cannot read, such as float16 (halffloat); write it "
        + "as float32" : reason(deepest, file);
    if (file != null && !reason.contains(withoutScheme(file))) {
      reason = withoutScheme(file) + ": " + reason;
    }
    return Optional.of(reason);
  }

  private static String reason(Throwable cause, String file) {
    String message = cause.getMessage() == null ? cause.getClass().getSimpleName()
        : cause.getMessage().strip().lines().findFirst().orElse("").replaceFirst("^requirement failed: ", "");
    if (cause instanceof ChecksumException) {
      String crc = file == null ? "its .crc file" : "." + file.substring(file.lastIndexOf('/') + 1) + ".crc";
      return message + " (Hadoop's checksum file " + crc + " beside it does not match the file, which was changed "
          + "after Hadoop wrote it: delete " + crc + ")";
    }
    return message;
  }

  /**
   * Spark 4's schema converter refuses a Parquet type it has no Spark type for (its error class
   * PARQUET_TYPE_ILLEGAL, e.g. "Illegal Parquet type: FIXED_LEN_BYTE_ARRAY (FLOAT16)"), on the driver.
   */
  private static boolean refusedParquetType(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("PARQUET_TYPE_ILLEGAL")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Spark 3.5's parquet-mr 1.13 meets a logical type newer than itself (pyarrow writes float16 columns with one).
   */
  private static boolean unknownLogicalType(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof NullPointerException && java.util.Arrays.stream(t.getStackTrace()).anyMatch(frame ->
          frame.getMethodName().equals("getLogicalTypeAnnotation"))) {
        return true;   // the message saying so is lost when the task's exception reaches the driver
      }
    }
    return false;
  }

  /**
   * Spark's CSV parser (univocity) holds at most {@code maxColumns} values a row; one more overflows its array.
   * Its own hint naming the limit needs the overflow's message to be the bare index, which it is not on JDK 11+.
   */
  private static final Pattern CSV_OVERFLOW = Pattern.compile("ArrayIndexOutOfBoundsException - Index (\\d+) out of "
      + "bounds|exceeded limit of (\\d+) columns");

  private static Optional<String> csvColumnLimit(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      Matcher m = CSV_OVERFLOW.matcher(message);
      if ((t.getClass().getName().endsWith(".TextParsingException") || message.contains("TextParsingException"))
          && m.find()) {
        long limit = Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2));
        return Optional.of(String.format(java.util.Locale.ROOT, "a row has more than %,d columns, the most Spark's "
            + "CSV reader takes (its maxColumns option): write the table as Parquet, or pack the features into "
            + "fewer columns", limit));
      }
    }
    return Optional.empty();
  }

  private static String withoutScheme(String file) {
    return file.replaceFirst("^file:/*", "/");
  }
}
