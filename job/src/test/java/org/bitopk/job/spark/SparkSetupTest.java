package org.bitopk.job.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.internal.config.Network$;
import org.apache.spark.internal.config.package$;
import org.apache.spark.network.util.MapConfigProvider;
import org.apache.spark.network.util.TransportConf;
import org.bitopk.job.BadInputException;
import org.bitopk.job.engine.AggregationThreads;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.Option;
import scala.Tuple2;

/**
 * How long a silent executor goes on stalling the rounds: on a cluster the driver declares it lost after 60 s,
 * looked for every 5 s, and a block fetch gives up on it after 15 s, read back through Spark's own config entries
 * and transport configuration, the ones its heartbeat receiver and block transfers read (so a misspelt key or unit
 * would read as Spark's defaults, 120 s, 60 s and 120 s); the process-level locality wait, as the task scheduler
 * reads it, stays Spark's 3 s, and a user's own (spark-submit hands a --conf to the driver as a system property)
 * arrives unchanged; a local master is left as Spark has it, and so is any timeout the user gave; a count of the
 * driver's aggregation threads that is not one is bad input before Spark starts.
 */
@Tag("spark-api")
class SparkSetupTest {
  private static Option<Object> heartbeatTimeoutMs(SparkConf conf) {
    return conf.get(package$.MODULE$.STORAGE_BLOCKMANAGER_HEARTBEAT_TIMEOUT());
  }

  private static long checkIntervalMs(SparkConf conf) {
    return (Long) conf.get(Network$.MODULE$.NETWORK_TIMEOUT_INTERVAL());
  }

  @Test
  void aClusterDriverDeclaresAnExecutorLostAfterSixtySecondsOfSilence() {
    SparkConf conf = SparkSetup.conf("spark://head:7077");
    assertEquals(Option.apply(60_000L), heartbeatTimeoutMs(conf));
    assertEquals(5_000L, checkIntervalMs(conf));
    assertEquals(60_000L, SparkSetup.conf("yarn").getTimeAsMs("spark.storage.blockManagerHeartbeatTimeoutMs"));
  }

  /**
   * How long Spark's block transfers wait on a silent peer, as its block transfer service reads it (from the
   * SparkConf's settings; SparkTransportConf.fromSparkConf, which adds thread counts and TLS, differs by line).
   */
  private static int blockFetchTimeoutMs(SparkConf conf) {
    Map<String, String> settings = new HashMap<>();
    for (Tuple2<String, String> setting : conf.getAll()) {
      settings.put(setting._1(), setting._2());
    }
    return new TransportConf("shuffle", new MapConfigProvider(settings)).connectionTimeoutMs();
  }

  @Test
  void aClusterBlockFetchGivesUpOnASilentExecutorAfterFifteenSeconds() {
    assertEquals(15_000, blockFetchTimeoutMs(SparkSetup.conf("spark://head:7077")));
    SparkConf own = new SparkConf(false).set("spark.shuffle.io.connectionTimeout", "40s");
    SparkSetup.giveUpOnSilentBlockFetches(own);
    assertEquals(40_000, blockFetchTimeoutMs(own));
  }

  /** How long the task scheduler keeps a task waiting for the executor that caches its input. */
  private static long processLocalityWaitMs(SparkConf conf) {
    return (Long) conf.get(package$.MODULE$.LOCALITY_WAIT_PROCESS());
  }

  @Test
  void aClusterKeepsSparksLocalityWaitOrTheUsersOwn() {
    assertEquals(3_000L, processLocalityWaitMs(SparkSetup.conf("spark://head:7077")));
    assertEquals(3_000L, processLocalityWaitMs(SparkSetup.conf("yarn")));
    System.setProperty("spark.locality.wait.process", "10min");
    try {
      assertEquals(600_000L, processLocalityWaitMs(SparkSetup.conf("spark://head:7077")));
    } finally {
      System.clearProperty("spark.locality.wait.process");
    }
  }

  @Test
  void aLocalMasterKeepsSparksDefaults() {
    SparkConf conf = SparkSetup.conf("local[2]");
    assertTrue(heartbeatTimeoutMs(conf).isEmpty());
    assertEquals(60_000L, checkIntervalMs(conf));
    assertEquals(120_000, blockFetchTimeoutMs(conf));
    assertEquals(3_000L, processLocalityWaitMs(conf));
  }

  @ParameterizedTest
  @ValueSource(strings = {"spark.network.timeout", "spark.storage.blockManagerHeartbeatTimeoutMs",
      "spark.storage.blockManagerSlaveTimeoutMs", "spark.executor.heartbeatInterval", "spark.network.timeoutInterval"})
  void aTimeoutOfTheUsersOwnIsLeftAlone(String key) {
    SparkConf conf = new SparkConf(false).setMaster("spark://head:7077").set(key, "300s");
    SparkSetup.declareSilentExecutorsLost(conf);
    assertEquals("300s", conf.get(key));
    assertFalse(conf.contains("spark.network.timeoutInterval") && !key.equals("spark.network.timeoutInterval"));
    assertFalse(conf.contains("spark.storage.blockManagerHeartbeatTimeoutMs")
        && !key.startsWith("spark.storage.blockManager"));
  }

  @Test
  void aBadCountOfAggregationThreadsIsBadInputBeforeSparkStarts() {
    System.setProperty(AggregationThreads.KEY, "many");
    try {
      BadInputException e = assertThrows(BadInputException.class, () -> SparkSetup.conf("local[2]"));
      assertEquals("spark.bitopk.driver.aggregationThreads = 'many'; expected a whole number of threads from 1 to 256",
          e.getMessage());
    } finally {
      System.clearProperty(AggregationThreads.KEY);
    }
  }

  /** The state handover plugin joins the user's plugins, through Spark's own entry, once. */
  @Test
  void theStateHandoverPluginIsAddedToTheUsersPlugins() {
    String handover = org.bitopk.job.engine.StateHandover.class.getName();
    SparkConf none = new SparkConf(false);
    SparkSetup.handOverStatesOnDecommission(none);
    assertEquals(java.util.List.of(handover), scala.collection.JavaConverters.seqAsJavaList(
        none.get(package$.MODULE$.PLUGINS())));
    SparkConf users = new SparkConf(false).set("spark.plugins", "com.example.Profiler");
    SparkSetup.handOverStatesOnDecommission(users);
    SparkSetup.handOverStatesOnDecommission(users);
    assertEquals("com.example.Profiler," + handover, users.get("spark.plugins"));
  }

  /** The job's Spark configuration lists both of its plugins after the user's, each once. */
  @Test
  void theJobsConfigurationListsItsPluginsOnce() {
    SparkConf users = new SparkConf(false).set("spark.plugins", "com.example.Profiler");
    SparkSetup.handOverStatesOnDecommission(users);
    SparkSetup.loadNativesAhead(users);
    SparkSetup.loadNativesAhead(users);
    assertEquals("com.example.Profiler," + org.bitopk.job.engine.StateHandover.class.getName() + ","
        + org.bitopk.job.problem.network.NativeWarmUp.class.getName(), users.get("spark.plugins"));
  }
}
