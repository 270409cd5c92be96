package org.bitopk.job.problem.network;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Loads ND4J's native backend on every executor as it starts, on a thread of its own, so that the executor's first
 * task does not: loading it takes 0.8 s on an idle machine and more on a busy one, and a joining executor's first
 * task is the building of the groups it is to take over, which the run waits for before it moves them. The thread
 * runs while Spark sets the executor up and its first tasks fetch their blocks; a task that needs ND4J sooner
 * waits for the loading (the JVM initialises a class once, whichever thread asks first).
 *
 * <p>The job adds this plugin to {@code spark.plugins} ({@code SparkSetup}). In local mode the driver is the
 * executor and loads ND4J as it builds the model, so the plugin does nothing there. A failure to load is logged and
 * left to the first task, which fails the same way and says so.
 */
public final class NativeWarmUp implements SparkPlugin {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NativeWarmUp.class);
  /** The loading this JVM started, once the executor's plugin started it. */
  private static final AtomicReference<Optional<CompletableFuture<String>>> LOADING =
      new AtomicReference<>(Optional.empty());

  @Override
  public DriverPlugin driverPlugin() {
    return null;   // Spark's contract for a plugin without a driver-side half
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new ExecutorPlugin() {
      @Override
      public void init(PluginContext context, Map<String, String> extraConf) {
        if (!"driver".equals(context.executorID())) {
          start();
        }
      }
    };
  }

  /**
   * Starts loading ND4J on a daemon thread; returns the loading, done (with the thread's name) when ND4J has
   * computed its first product.
   */
  static CompletableFuture<String> start() {
    CompletableFuture<String> done = new CompletableFuture<>();
    LOADING.set(Optional.of(done));
    Thread thread = new Thread(() -> {
      long start = System.nanoTime();
      try {
        Nd4j.create(new float[] {1f, 2f}, new long[] {1, 2}, DataType.FLOAT).mmul(
            Nd4j.create(new float[] {3f, 4f}, new long[] {2, 1}, DataType.FLOAT));
        LOG.info("ND4J loaded in {} ms, before the executor's first task needs it",
            Math.round((System.nanoTime() - start) / 1e6));
        done.complete(Thread.currentThread().getName());
      } catch (Throwable e) {   // a native library that does not load: the first task fails and says so
        LOG.warn("could not load ND4J ahead of the executor's first task: {}", e.toString());
        done.completeExceptionally(e);
      }
    }, "bitopk-nd4j-warm-up");
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /** The loading the executor's plugin started in this JVM, if it did. */
  static Optional<CompletableFuture<String>> loading() {
    return LOADING.get();
  }
}
