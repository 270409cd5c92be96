package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The driver's aggregation threads: the driver's cores by default (spark.driver.cores when set, else the JVM's),
 * never more than 8 by default; the setting wins when given, and a value that is not a count from 1 to 256 is
 * refused naming the setting.
 */
class AggregationThreadsTest {
  @Test
  void defaultsToTheDriversCoresCappedAtEight() {
    SparkConf conf = new SparkConf(false);
    assertEquals(1, AggregationThreads.of(conf, 1));
    assertEquals(2, AggregationThreads.of(conf, 2));
    assertEquals(8, AggregationThreads.of(conf, 64));
    assertEquals(3, AggregationThreads.of(conf.clone().set("spark.driver.cores", "3"), 64));
    assertEquals(8, AggregationThreads.of(conf.clone().set("spark.driver.cores", "32"), 2));
  }

  @Test
  void theSettingWins() {
    SparkConf conf = new SparkConf(false).set("spark.driver.cores", "4");
    assertEquals(1, AggregationThreads.of(conf.clone().set(AggregationThreads.KEY, "1"), 16));
    assertEquals(12, AggregationThreads.of(conf.clone().set(AggregationThreads.KEY, " 12 "), 2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-2", "257", "two", "1.5", ""})
  void refusesWhatIsNotACount(String value) {
    SparkConf conf = new SparkConf(false).set(AggregationThreads.KEY, value);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AggregationThreads.of(conf, 2));
    assertEquals("spark.bitopk.driver.aggregationThreads = '" + value.trim()
        + "'; expected a whole number of threads from 1 to 256", e.getMessage());
  }
}
