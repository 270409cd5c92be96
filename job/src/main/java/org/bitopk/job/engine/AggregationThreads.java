package org.bitopk.job.engine;

import org.apache.spark.SparkConf;

/**
 * How many threads of the driver decode and sum the workers' uplinks each round ({@link ServerAggregator} through
 * {@link org.bitopk.compression.SparseSum}): the Spark setting {@value #KEY} when given, else the driver's cores
 * ({@code spark.driver.cores} when set, as in cluster deploy mode, else the cores the driver's JVM sees), at most
 * {@value #DEFAULT_CAP}. The count changes no bit of a run, only how fast the driver aggregates: the rest of the
 * driver's round (the server's error feedback and TopK, encoding, the broadcast) stays on one thread, and beyond a
 * few threads the sum is bound by memory bandwidth.
 */
public final class AggregationThreads {
  /** The Spark setting that fixes the count. */
  public static final String KEY = "spark.bitopk.driver.aggregationThreads";
  /** The default never takes more threads than this, however many cores the driver has. */
  static final int DEFAULT_CAP = 8;
  /** A count given explicitly may not exceed this. */
  static final int MAX = 256;

  private AggregationThreads() {}

  /**
   * The count for a driver with this configuration and {@code cores} cores seen by its JVM.
   *
   * @throws IllegalArgumentException naming {@value #KEY} when its value is not a whole number from 1 to {@value #MAX}
   */
  public static int of(SparkConf conf, int cores) {
    if (conf.contains(KEY)) {
      String value = conf.get(KEY).trim();
      int threads;
      try {
        threads = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        threads = 0;
      }
      if (threads < 1 || threads > MAX) {
        throw new IllegalArgumentException(KEY + " = '" + value + "'; expected a whole number of threads from 1 to "
            + MAX);
      }
      return threads;
    }
    int driverCores = cores;
    if (conf.contains("spark.driver.cores")) {
      try {
        driverCores = Integer.parseInt(conf.get("spark.driver.cores").trim());
      } catch (NumberFormatException e) {
        driverCores = cores; // Spark itself refuses such a value at submission; not this setting's business
      }
    }
    return Math.max(1, Math.min(DEFAULT_CAP, driverCores));
  }

  /** {@link #of(SparkConf, int)} with the cores this JVM sees. */
  public static int of(SparkConf conf) {
    return of(conf, Runtime.getRuntime().availableProcessors());
  }
}
