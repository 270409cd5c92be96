package org.bitopk.job.engine;

import java.util.concurrent.CompletableFuture;
import org.apache.spark.SparkContext;

/**
 * Spark jobs the driver runs beside its own thread: on a daemon thread of their own, their outcome a future. Spark
 * runs jobs of different threads side by side; the thread inherits the caller's Spark local properties.
 */
final class DriverThread {
  private DriverThread() {}

  /** Starts {@code jobs} on a new daemon thread named {@code name}; the future completes as they end. */
  static CompletableFuture<Void> start(String name, Runnable jobs) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        jobs.run();
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    }, name);
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /**
   * Starts {@code jobs} as {@link #start} does, as Spark job group {@code jobGroup} (whose cancellation interrupts
   * its tasks) and outside the rounds: they carry no {@link RoundJob#ROUND_PROPERTY}, though the caller's round
   * would pass it on.
   */
  static CompletableFuture<Void> startGroup(SparkContext sc, String name, String jobGroup, String description,
      Runnable jobs) {
    return start(name, () -> {
      sc.setLocalProperty(RoundJob.ROUND_PROPERTY, null);
      sc.setJobGroup(jobGroup, description, true);
      try {
        jobs.run();
      } finally {
        sc.clearJobGroup();
      }
    });
  }
}
