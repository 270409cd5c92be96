package org.bitopk.lab.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import scala.Option;

/**
 * The timings listener on three real jobs of two tasks, each task sleeping 150 ms: three jobs and six tasks are
 * counted, the run time of the median task is at least the sleep, the tasks are counted on the executor that
 * ran them, and the summary file is written at the application's end.
 */
@Tag("spark-api")
class SparkTaskTimingsTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @Test
  void countsJobsAndTasksAndTimesTheirRuns(@TempDir Path tmp) throws IOException, TimeoutException,
      ReflectiveOperationException {
    JavaSparkContext sc = SPARK.context();
    Path file = tmp.resolve("timings.json");
    SparkTaskTimings timings = new SparkTaskTimings(new SparkConf().set(SparkTaskTimings.FILE_KEY, file.toString()));
    sc.sc().addSparkListener(timings);
    try {
      for (int job = 0; job < 3; job++) {
        sc.parallelize(List.of(1, 2), 2).foreach(x -> Thread.sleep(150));
      }
      sc.sc().listenerBus().waitUntilEmpty();
    } finally {
      sc.sc().removeSparkListener(timings);
    }
    timings.onApplicationEnd(applicationEnd());
    JsonNode summary = new ObjectMapper().readTree(file.toFile());
    assertEquals(3, summary.path("jobs").asInt(), summary.toString());
    assertEquals(6, summary.path("tasks").asInt(), summary.toString());
    assertTrue(summary.path("run_ms").asDouble() >= 150, summary.toString());
    assertTrue(summary.path("job_ms").asDouble() >= 150, summary.toString());
    assertTrue(summary.path("scheduler_delay_ms").asDouble() >= 0, summary.toString());
    assertTrue(summary.path("result_bytes").asDouble() > 0, summary.toString());
    // local mode: every task ran on the one executor, the driver's, two per job
    assertEquals(6, summary.path("tasks_by_executor").path("driver").asInt(), summary.toString());
    assertEquals(1, summary.path("tasks_by_executor").size(), summary.toString());
    assertEquals(3, summary.path("jobs_by_tasks_per_executor").path("2").asInt(), summary.toString());
  }

  @Test
  void refusesToRunWithoutItsFile() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SparkTaskTimings(new SparkConf()));
    assertTrue(e.getMessage().contains(SparkTaskTimings.FILE_KEY), e.getMessage());
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertEquals(2.0, SparkTaskTimings.median(List.of(3L, 1L, 2L), Long::doubleValue));
    assertEquals(2.5, SparkTaskTimings.median(List.of(4L, 1L, 2L, 3L), Long::doubleValue));
  }

  /** Spark's application-end event at time 0: Spark 4 added an exit code (absent here) to Spark 3.5's time. */
  static SparkListenerApplicationEnd applicationEnd() throws ReflectiveOperationException {
    Constructor<?> constructor = SparkListenerApplicationEnd.class.getConstructors()[0];
    return (SparkListenerApplicationEnd) (constructor.getParameterCount() == 1 ? constructor.newInstance(0L)
        : constructor.newInstance(0L, Option.empty()));
  }
}
