package org.bitopk.lab.baseline;

import java.util.Set;
import java.util.function.IntSupplier;
import org.apache.spark.ExecutorAllocationClient;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import scala.collection.JavaConverters;

/**
 * The application's executors, counted, and a wait for them: after a cut host's link is back, its Worker gives the
 * application a new executor (the old one was declared lost), and what runs next (the next system, a DDP restart's
 * barrier stage, which needs every task slot) waits for it.
 */
final class ExecutorCount {
  /** How long a wait for the executors lasts at most. */
  static final long WAIT_SECONDS = 300;

  private ExecutorCount() {}

  /** The executors the scheduler knows and launches tasks on (not being removed or decommissioned). */
  static IntSupplier of(JavaSparkContext sc) {
    return of(sc, Set.of());
  }

  /**
   * As {@link #of(JavaSparkContext)}, leaving out the executors {@code lost} names: when a job fails because an
   * executor was lost, the scheduler may still list it for a moment.
   */
  static IntSupplier of(JavaSparkContext sc, Set<String> lost) {
    SparkContext context = sc.sc();
    return () -> (int) JavaConverters.seqAsJavaList(context.getExecutorIds()).stream()
        .filter(id -> !lost.contains(id) && active(context, id)).count();
  }

  private static boolean active(SparkContext context, String id) {
    return !(context.schedulerBackend() instanceof ExecutorAllocationClient client) || client.isExecutorActive(id);
  }

  /** Waits until {@code executors} counts at least {@code count}, at most {@code seconds}; whether it did. */
  static boolean await(IntSupplier executors, int count, double seconds) throws InterruptedException {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    while (executors.getAsInt() < count) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(250);
    }
    return true;
  }
}
