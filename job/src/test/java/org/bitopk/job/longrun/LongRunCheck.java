package org.bitopk.job.longrun;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.SparkTestContext;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.run.TrainingRun;
import org.bitopk.job.spark.SparkSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The long run: {@code longrun.iterations} rounds (default 10,000) of the counterexample on local[2], with
 * checkpoints, sampling the driver's heap after GC and its live broadcasts every {@code longrun.every} rounds.
 * Not part of {@code mvn test} (the name does not end in Test: it takes minutes); run it with
 * <pre>mvn -B -pl job -am test -Dtest=LongRunCheck -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * It prints one line per sample and fails if the heap or the broadcast count grows with the round number.
 * DriverFootprintTest runs the same check over a few hundred rounds in every build.
 */
class LongRunCheck {

  @Test
  void driverHeapAndBroadcastsStayFlat(@TempDir Path tmp) throws Exception {
    int iterations = Integer.getInteger("longrun.iterations", 10_000);
    int every = Integer.getInteger("longrun.every", 500);
    List<DriverFootprint.Sample> samples = run(tmp, iterations, every, 1000);
    assertFlat(samples, 8L << 20);
  }

  static List<DriverFootprint.Sample> run(Path tmp, int iterations, int every, int checkpointEvery) throws Exception {
    // Spark's status store keeps the last spark.ui.retainedJobs/Stages (1,000 by default) jobs and stages even
    // with the UI off: the heap grows until then by design. A small bound reaches the plateau early.
    SparkConf conf = SparkTestContext.conf()
        .set("spark.ui.retainedJobs", "100").set("spark.ui.retainedStages", "100")
        .set("spark.ui.retainedTasks", "1000");
    JavaSparkContext sc = SparkSetup.start(conf);
    try {
      TrainingConfig config = TrainingConfig.builder().master("local[2]").dataset("counterexample")
          .epochs(iterations).evalEvery(iterations).checkpointEvery(checkpointEvery)
          .output(tmp.resolve("long-run").toString()).quiet(true).build();
      DriverFootprint footprint = new DriverFootprint(every);
      long start = System.nanoTime();
      TrainingRun.execute(sc, config, false, List.of(footprint));
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("long run: %d iterations in %.1f s (%.2f ms/iteration)%n", iterations, seconds,
          1000 * seconds / iterations);
      System.out.println("iteration  heap_after_gc_MiB  live_broadcasts");
      for (DriverFootprint.Sample s : footprint.samples()) {
        System.out.printf("%9d  %17.1f  %15d%n", s.iteration(), s.heapAfterGcBytes() / 1048576.0, s.liveBroadcasts());
      }
      return footprint.samples();
    } finally {
      sc.stop();
    }
  }

  /**
   * No growth trend after warm-up (the first quarter of the samples): heap slope below
   * {@code heapSlackBytes} per 1,000 rounds, and a live-broadcast slope below 50 per 1,000 rounds: removal is
   * asynchronous, so the count jitters by a few around its bound, while one leaked broadcast per round would
   * show as 1,000.
   */
  static void assertFlat(List<DriverFootprint.Sample> samples, long heapSlackBytes) {
    assertTrue(samples.size() >= 4, "too few samples: " + samples);
    int skip = samples.size() / 4;
    double heapSlope = DriverFootprint.slopePerThousand(samples, skip, s -> s.heapAfterGcBytes());
    double broadcastSlope = DriverFootprint.slopePerThousand(samples, skip, s -> s.liveBroadcasts());
    System.out.printf("slopes per 1,000 iterations: heap %.2f MiB, broadcasts %.2f%n", heapSlope / 1048576.0,
        broadcastSlope);
    assertTrue(heapSlope < heapSlackBytes, "driver heap grows by " + heapSlope / 1048576.0
        + " MiB per 1,000 iterations: " + samples);
    assertTrue(broadcastSlope < 50, "live broadcasts grow by " + broadcastSlope + " per 1,000 iterations: " + samples);
  }
}
