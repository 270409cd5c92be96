package org.bitopk.job.engine;

import java.util.concurrent.CompletableFuture;

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
}
