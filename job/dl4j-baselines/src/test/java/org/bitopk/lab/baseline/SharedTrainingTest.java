package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Aeron's publication unblock timeout reaches the executors' JVMs: DL4J sets Aeron's client liveness timeout to
 * 30 s in every JVM of the mesh and Aeron's media driver refuses to start unless the unblock timeout (15 s by
 * default) is longer, so a comparison with {@code shared} appends it to the executors' Java options.
 */
@Tag("spark-api")
class SharedTrainingTest {
  private static final String OPTION = "-Daeron.publication.unblock.timeout=60000000000";

  @Test
  void aComparisonWithSharedAppendsTheTimeoutToTheExecutorOptionsTheUserGave() {
    SparkConf conf = new SparkConf(false).set("spark.executor.extraJavaOptions",
        "--add-opens=java.base/java.nio=ALL-UNNAMED -Dlog4j2.configurationFile=file:///x");
    SparkConf built = TimeToAccuracyCommand.sparkConf(conf, TimeToAccuracyCommand.parseSystems(
        List.of("bitopk-bidirectional", "shared")));
    assertEquals("--add-opens=java.base/java.nio=ALL-UNNAMED -Dlog4j2.configurationFile=file:///x " + OPTION,
        built.get("spark.executor.extraJavaOptions"));
    // 60 s > DL4J's 30 s client liveness timeout, which Aeron requires
    long nanos = Long.parseLong(OPTION.substring(OPTION.indexOf('=') + 1));
    assertTrue(nanos > 30_000_000_000L, OPTION);
  }

  @Test
  void withoutExecutorOptionsTheTimeoutIsTheirOnlyOne() {
    SparkConf built = SharedTraining.forExecutors(new SparkConf(false));
    assertEquals(OPTION, built.get("spark.executor.extraJavaOptions"));
  }

  @Test
  void aTimeoutOfTheUsersOwnIsLeftAloneAndNothingIsAppendedTwice() {
    String own = "-Xss4m -Daeron.publication.unblock.timeout=90000000000";
    SparkConf conf = SharedTraining.forExecutors(new SparkConf(false).set("spark.executor.extraJavaOptions", own));
    assertEquals(own, conf.get("spark.executor.extraJavaOptions"));
    SparkConf twice = SharedTraining.forExecutors(SharedTraining.forExecutors(new SparkConf(false)));
    assertEquals(OPTION, twice.get("spark.executor.extraJavaOptions"));
  }

  @Test
  void onAClusterThePWorkersAreSpreadOverTheExecutorsAndLocallyAllRunInTheOneJvm() {
    assertEquals(2, SharedTraining.workersPerNode(8, false, 4));
    assertEquals(3, SharedTraining.workersPerNode(8, false, 3));   // 3 + 3 + 3 >= 8
    assertEquals(1, SharedTraining.workersPerNode(2, false, 4));
    assertEquals(8, SharedTraining.workersPerNode(8, true, 0));
  }

  @Test
  void aComparisonWithoutSharedLeavesTheExecutorOptionsAlone() {
    SparkConf built = TimeToAccuracyCommand.sparkConf(new SparkConf(false).set("spark.executor.extraJavaOptions",
        "-Xss4m"), TimeToAccuracyCommand.parseSystems(List.of("bitopk-dense", "patm-20")));
    assertEquals("-Xss4m", built.get("spark.executor.extraJavaOptions"));
    assertFalse(built.get("spark.kryo.registrator").isEmpty(), "ND4J's Kryo registrator is still added");
  }
}
