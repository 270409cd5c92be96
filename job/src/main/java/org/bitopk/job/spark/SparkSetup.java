package org.bitopk.job.spark;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.BadInputException;
import org.bitopk.job.engine.AggregationThreads;
import org.bitopk.job.engine.StateHandover;
import org.bitopk.job.problem.network.NativeWarmUp;
import org.jspecify.annotations.Nullable;
import scala.Tuple2;

/** The Spark configuration the job runs with. */
public final class SparkSetup {
  /** Silence after which the driver declares an executor lost, unless the user set a timeout of their own. */
  static final String EXECUTOR_SILENCE = "60s";
  /** How often the driver looks for silent executors. */
  static final String SILENCE_CHECK_INTERVAL = "5s";
  /** Spark's setting that lists the plugins; the job adds its own to the user's. */
  private static final String PLUGINS = "spark.plugins";
  /** How long a block fetch waits on an executor that says nothing before it gives up on it. */
  static final String BLOCK_FETCH_SILENCE = "15s";

  private SparkSetup() {}

  /**
   * @param master the master URL, or null for spark-submit's (spark.master), else local[*]
   *
   * <p>Kryo with the job's registrator; UI off and loopback binding for local masters; WARN logging (INFO logging
   * costs measurable time per job); OMP_NUM_THREADS=1 for executors because Spark already runs one task per
   * core and ND4J's OpenMP threads would oversubscribe them. Broadcasts are not compressed: the per-iteration
   * update is already SparseCodec-packed (LZ4 would only cost a codec and a copy per iteration) and the dense
   * snapshot's float bits hardly compress. The locality wait stays Spark's 3 s a level: a longer one keeps a
   * round's task on the executor holding its group through a short partition, but a round whose executor is
   * lost while another of its tasks still runs can then stall that long; a user sets it with
   * spark.locality.wait.process (job/docs/training.md).
   */
  public static SparkConf conf(@Nullable String master) {
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
    } else {
      declareSilentExecutorsLost(conf);
      giveUpOnSilentBlockFetches(conf);
    }
    handOverStatesOnDecommission(conf);
    loadNativesAhead(conf);
    checkAggregationThreads(conf);
    return conf;
  }

  /**
   * Adds {@link StateHandover} to the user's spark.plugins: an executor that stops (decommissioned) hands its
   * workers' states to the driver, which moves them with the workers.
   */
  static void handOverStatesOnDecommission(SparkConf conf) {
    addPlugin(conf, StateHandover.class.getName());
  }

  /**
   * Adds {@link NativeWarmUp} to the user's spark.plugins: each executor loads ND4J as it starts, not in its first
   * task.
   */
  static void loadNativesAhead(SparkConf conf) {
    addPlugin(conf, NativeWarmUp.class.getName());
  }

  private static void addPlugin(SparkConf conf, String plugin) {
    String listed = conf.get(PLUGINS, "").trim();
    if (!java.util.Arrays.asList(listed.split("\\s*,\\s*")).contains(plugin)) {
      conf.set(PLUGINS, listed.isEmpty() ? plugin : listed + "," + plugin);
    }
  }

  /** The driver's aggregation threads, if set, checked before Spark starts (read again by the driver loop). */
  static void checkAggregationThreads(SparkConf conf) {
    try {
      AggregationThreads.of(conf);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }

  /**
   * A round waits for every group's task, so an executor cut off from the network stalls the whole run until
   * Spark declares it lost. Spark's driver does so after spark.network.timeout (120 s) without a heartbeat,
   * looked for every 60 s: 110 to 180 s after the cut (heartbeats come every 10 s), the only detection on YARN
   * and Kubernetes. The job declares it after 60 s, as the standalone Master declares a silent Worker dead with
   * its default spark.worker.timeout, looked for every 5 s: 50 to 65 s after the cut on every cluster manager
   * (the Master's own check, once per spark.worker.timeout, comes 45 to 120 s after it). The cost: an executor
   * silent for 60 s (a cut-off host, a stop-the-world pause that long) is replaced and its workers' residuals
   * are lost, where Spark would have waited up to three times as long. Only the driver's heartbeat receiver
   * reads these two settings; RPC and fetch timeouts keep spark.network.timeout. A network timeout, heartbeat
   * timeout or heartbeat interval of the user's own is left alone.
   */
  static void declareSilentExecutorsLost(SparkConf conf) {
    if (conf.contains("spark.network.timeout") || conf.contains("spark.storage.blockManagerHeartbeatTimeoutMs")
        || conf.contains("spark.storage.blockManagerSlaveTimeoutMs") || conf.contains("spark.executor.heartbeatInterval")
        || conf.contains("spark.network.timeoutInterval")) {
      return;
    }
    conf.set("spark.storage.blockManagerHeartbeatTimeoutMs", EXECUTOR_SILENCE)
        .set("spark.network.timeoutInterval", SILENCE_CHECK_INTERVAL);
  }

  /**
   * When the driver declares an executor lost, the retried task may already have asked where the group's cached
   * block is and been told: on that executor (the driver drops its blocks a few milliseconds later). Its fetch
   * then waits on a host that does not answer until the connection counts as dead after
   * spark.shuffle.io.connectionTimeout, by default spark.network.timeout (120 s), or until the host is back;
   * then, spark.shuffle.io.retryWait (5 s) later, Spark finds the executor dead and the task rebuilds the block
   * from the data set's files. The job gives up on a block fetch after 15 s of silence instead. The cost: a fetch
   * from an executor that stays silent that long (a stop-the-world pause) is abandoned, and the block is fetched
   * elsewhere or rebuilt. Only block transfers (cached blocks, broadcast pieces) read this setting; a value of the
   * user's own is left alone.
   */
  static void giveUpOnSilentBlockFetches(SparkConf conf) {
    conf.setIfMissing("spark.shuffle.io.connectionTimeout", BLOCK_FETCH_SILENCE);
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
