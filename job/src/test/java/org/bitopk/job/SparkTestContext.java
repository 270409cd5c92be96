package org.bitopk.job;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.spark.SparkSetup;

/** The job's Spark configuration on local[2], loopback only: one context per test class. */
public final class SparkTestContext {
  private SparkTestContext() {}

  public static JavaSparkContext start() {
    SparkConf conf = SparkSetup.conf("local[2]")
        .set("spark.ui.enabled", "false")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1");
    return SparkSetup.start(conf);
  }
}
