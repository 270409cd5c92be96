package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag$;

class BroadcastPrefetchTest {
  /** A broadcast whose read waits at a barrier: it can only end when the others are read at the same time. */
  private static final class MeetingBroadcast extends Broadcast<byte[]> {
    private static final long serialVersionUID = 1L;
    private final transient CyclicBarrier all;
    private final transient AtomicInteger timedOut;
    private final transient java.util.Set<String> threads;

    MeetingBroadcast(long id, CyclicBarrier all, AtomicInteger timedOut, java.util.Set<String> threads) {
      super(id, ClassTag$.MODULE$.apply(byte[].class));
      this.all = all;
      this.timedOut = timedOut;
      this.threads = threads;
    }

    @Override
    public byte[] getValue() {
      threads.add(Thread.currentThread().getName());
      try {
        all.await(10, TimeUnit.SECONDS);
      } catch (TimeoutException | BrokenBarrierException e) {
        timedOut.incrementAndGet();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new byte[] {(byte) id()};
    }

    @Override
    public void doUnpersist(boolean blocking) {}

    @Override
    public void doDestroy(boolean blocking) {}
  }

  /** Read one after the other, no read could pass the barrier the others must reach too: the reads overlap. */
  @Test
  void readsTheBroadcastsSideBySide() {
    int n = BroadcastPrefetch.THREADS + 1;   // the caller's thread reads one of them
    CyclicBarrier all = new CyclicBarrier(n);
    AtomicInteger timedOut = new AtomicInteger();
    java.util.Set<String> threads = ConcurrentHashMap.newKeySet();
    List<Broadcast<byte[]>> broadcasts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      broadcasts.add(new MeetingBroadcast(i, all, timedOut, threads));
    }
    BroadcastPrefetch.values(broadcasts);
    assertEquals(0, timedOut.get(), "every read met the others at the barrier");
    assertEquals(n, threads.size(), "each broadcast read on a thread of its own: " + threads);
    assertTrue(threads.contains(Thread.currentThread().getName()), "one read on the caller's thread");
  }

  /** A read that fails is left to the task's own read: the others are still read, and nothing is thrown here. */
  @Test
  void aFailedReadStopsNothing() {
    AtomicInteger read = new AtomicInteger();
    List<Broadcast<byte[]>> broadcasts = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      boolean fails = i % 2 == 0;
      broadcasts.add(new Broadcast<byte[]>(i, ClassTag$.MODULE$.apply(byte[].class)) {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] getValue() {
          read.incrementAndGet();
          if (fails) {
            throw new IllegalStateException("destroyed");
          }
          return new byte[0];
        }

        @Override
        public void doUnpersist(boolean blocking) {}

        @Override
        public void doDestroy(boolean blocking) {}
      });
    }
    BroadcastPrefetch.values(broadcasts);
    assertEquals(4, read.get());
  }
}
