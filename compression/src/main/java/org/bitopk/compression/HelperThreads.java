package org.bitopk.compression;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs the parts of one piece of work at once and returns when all are done: part 0 on the calling thread, the
 * others on helper threads. The helpers are daemon threads that end after {@link #IDLE_SECONDS} without work, so
 * the owner needs no closing: an unused instance costs nothing once its threads have ended.
 *
 * <p>Everything a part writes is visible to the caller when {@link #run} returns, and everything the caller wrote
 * before it is visible to every part (the executor's hand-over and {@link Future#get} order them).
 */
final class HelperThreads {
  static final int IDLE_SECONDS = 30;
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final int threads;
  /** The threads beyond the caller's; none for a single thread. */
  private final ThreadPoolExecutor helpers;

  /** @param threads at least 1, the calling thread included */
  HelperThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads = " + threads + "; expected at least 1");
    }
    this.threads = threads;
    if (threads == 1) {
      this.helpers = null;
      return;
    }
    String name = "bitopk-sum-" + POOLS.incrementAndGet() + "-";
    AtomicInteger count = new AtomicInteger();
    this.helpers = new ThreadPoolExecutor(threads - 1, threads - 1, IDLE_SECONDS, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, name + count.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    this.helpers.allowCoreThreadTimeOut(true);
  }

  int threads() {
    return threads;
  }

  /**
   * Runs {@code part.accept(p)} for p in [0, parts) at once and waits for all of them, even when one fails or the
   * caller is interrupted (the parts write into the caller's state). Then rethrows the failure of the lowest part.
   *
   * @param parts in [1, {@link #threads()}]
   */
  void run(int parts, IntConsumer part) {
    if (parts < 1 || parts > threads) {
      throw new IllegalArgumentException("parts = " + parts + "; expected 1 to " + threads);
    }
    List<Future<?>> others = new ArrayList<>(parts - 1);
    for (int p = 1; p < parts; p++) {
      int which = p;
      others.add(helpers.submit(() -> part.accept(which)));
    }
    Throwable first = null;
    try {
      part.accept(0);
    } catch (RuntimeException | Error e) {
      first = e;
    }
    boolean interrupted = false;
    for (Future<?> other : others) {
      while (true) {
        try {
          other.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (first == null) {
            first = e.getCause();
          }
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (first instanceof RuntimeException) {
      throw (RuntimeException) first;
    }
    if (first != null) {
      throw (Error) first;
    }
  }
}
