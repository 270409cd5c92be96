package org.bitopk.job.spark;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/** The Spark configuration the job runs with. */
public final class SparkSetup {
  private SparkSetup() {}

  /**
   * @param master the master URL, or null for spark-submit's (spark.master), else local[*]
   *
   * <p>Kryo with the job's registrator; UI off and loopback binding for local masters; WARN logging (INFO logging
   * costs measurable time per job); OMP_NUM_THREADS=1 for executors because Spark already runs one task per
   * core and ND4J's OpenMP threads would oversubscribe them. Broadcasts are not compressed: the per-iteration
   * update is already SparseCodec-packed (LZ4 would only cost a codec and a copy per iteration) and the dense
   * snapshot's float bits hardly compress.
   */
  public static SparkConf conf(String master) {
    SparkConf conf = new SparkConf();
    if (master != null) {
      conf.setMaster(master);
    } else {
      conf.setIfMissing("spark.master", "local[*]"); // spark-submit's --master arrives as spark.master
    }
    conf.setIfMissing("spark.app.name", "bitopk")
        .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        // spark-submit's list wins (submit/spark-defaults.conf adds ND4J's registrator to this one)
        .setIfMissing("spark.kryo.registrator", BitopkKryoRegistrator.class.getName())
        .set("spark.kryoserializer.buffer.max", "2047m")
        .set("spark.executorEnv.OMP_NUM_THREADS", "1")
        .set("spark.broadcast.compress", "false");
    if (conf.get("spark.master").equals("yarn")) {
      // Hadoop's YARN client retries an unreachable ResourceManager for 15 minutes by default: bound it.
      conf.setIfMissing("spark.hadoop.yarn.resourcemanager.connect.max-wait.ms", "60000");
    }
    if (conf.get("spark.master").startsWith("local")) {
      conf.setIfMissing("spark.ui.enabled", "false")
          .setIfMissing("spark.driver.host", "127.0.0.1")
          .setIfMissing("spark.driver.bindAddress", "127.0.0.1");
    }
    return conf;
  }

  /**
   * The Hadoop configuration the SparkContext will use, available before it starts: Hadoop's defaults and
   * site files plus every {@code spark.hadoop.*} setting (what Spark itself adds to {@code
   * sc.hadoopConfiguration()}), so the output directory and the data can be checked without Spark.
   */
  public static Configuration hadoopConfiguration() {
    return hadoopConfiguration(new SparkConf());
  }

  /** As {@link #hadoopConfiguration()}, with the {@code spark.hadoop.*} settings of {@code conf}. */
  public static Configuration hadoopConfiguration(SparkConf conf) {
    Configuration hadoop = new Configuration();
    for (Tuple2<String, String> entry : conf.getAll()) {
      if (entry._1().startsWith("spark.hadoop.")) {
        hadoop.set(entry._1().substring("spark.hadoop.".length()), entry._2(), "spark.hadoop.* setting");
      }
    }
    return hadoop;
  }

  public static JavaSparkContext start(SparkConf conf) {
    JavaSparkContext sc = new JavaSparkContext(conf);
    sc.setLogLevel("WARN");
    return sc;
  }
}
