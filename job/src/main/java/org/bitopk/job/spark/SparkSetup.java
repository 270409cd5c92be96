package org.bitopk.job.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/** The Spark configuration the job runs with. */
public final class SparkSetup {
  private SparkSetup() {}

  /**
   * Kryo with the job's registrator; UI off and loopback binding for local masters; WARN logging (INFO logging
   * costs measurable time per job); OMP_NUM_THREADS=1 for executors because Spark already runs one task per
   * core and ND4J's OpenMP threads would oversubscribe them.
   */
  public static SparkConf conf(String master) {
    SparkConf conf = new SparkConf()
        .setMaster(master)
        .setAppName("bitopk")
        .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        // setIfMissing: spark-submit's settings (submit/spark-defaults.conf adds ND4J's registrator) win.
        .setIfMissing("spark.kryo.registrator", BitopkKryoRegistrator.class.getName())
        .setIfMissing("spark.kryoserializer.buffer.max", "512m")
        .setIfMissing("spark.executorEnv.OMP_NUM_THREADS", "1");
    if (master.startsWith("local")) {
      conf.setIfMissing("spark.ui.enabled", "false")
          .setIfMissing("spark.driver.host", "127.0.0.1")
          .setIfMissing("spark.driver.bindAddress", "127.0.0.1");
    }
    return conf;
  }

  public static JavaSparkContext start(SparkConf conf) {
    JavaSparkContext sc = new JavaSparkContext(conf);
    sc.setLogLevel("WARN");
    return sc;
  }
}
