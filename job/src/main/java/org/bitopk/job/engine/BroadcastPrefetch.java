package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.spark.broadcast.Broadcast;

/**
 * Fetches the values of several broadcasts at once, before a task reads them one after the other. A replica that
 * catches up from far behind (new on its executor, or resynchronised) reads the dense snapshot and then a dozen
 * updates; each first read on an executor is a fetch from the driver of a few round trips, and one after the
 * other they took 125 ms of a new executor's first round on the network lab, more than the round's work. Fetched
 * side by side, they take about the time of one. Each value then sits in the executor's block manager, where the
 * task's own reads find it.
 *
 * <p>A fetch that fails here is left alone: the task's own read of that broadcast fails the same way and says so.
 */
final class BroadcastPrefetch {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BroadcastPrefetch.class);
  /** Fetches at once per executor JVM: the fetches wait on the network, not on its cores. */
  static final int THREADS = 8;
  private static final ThreadPoolExecutor FETCHERS = fetchers();

  private BroadcastPrefetch() {}

  private static ThreadPoolExecutor fetchers() {
    java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), run -> {
          Thread thread = new Thread(run, "bitopk-broadcast-prefetch-" + made.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** Reads the values of {@code broadcasts} side by side and returns once every read has ended; one is read here. */
  static void values(List<? extends Broadcast<?>> broadcasts) {
    if (broadcasts.size() < 2) {
      return;   // nothing to overlap: the caller's own read is as fast
    }
    List<Future<?>> reads = new ArrayList<>();
    for (Broadcast<?> b : broadcasts.subList(1, broadcasts.size())) {
      reads.add(FETCHERS.submit(b::value));
    }
    read(broadcasts.get(0));
    for (Future<?> r : reads) {
      try {
        r.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        LOG.debug("a broadcast's prefetch failed; the task's own read reports it: {}", e.getCause().toString());
      }
    }
  }

  private static void read(Broadcast<?> broadcast) {
    try {
      broadcast.value();
    } catch (RuntimeException e) {
      LOG.debug("a broadcast's prefetch failed; the task's own read reports it: {}", e.toString());
    }
  }
}
