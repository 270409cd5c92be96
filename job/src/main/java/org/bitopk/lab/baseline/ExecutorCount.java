package org.bitopk.lab.baseline;

import java.util.function.IntSupplier;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The application's executors, counted, and a wait for them: after a cut host's link is back, its Worker gives the
 * application a new executor (the old one was declared lost), and what runs next (the next system, a DDP restart's
 * barrier stage, which needs every task slot) waits for it.
 */
final class ExecutorCount {
  /** How long a wait for the executors lasts at most. */
  static final long WAIT_SECONDS = 300;

  private ExecutorCount() {}

  /** The executors the driver knows now (its own block manager left out). */
  static IntSupplier of(JavaSparkContext sc) {
    return () -> Math.max(0, sc.sc().statusTracker().getExecutorInfos().length - 1);
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
