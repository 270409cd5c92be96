package org.bitopk.job.longrun;

import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BroadcastBlockId;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.RunListener;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Samples the driver's footprint every {@code every} rounds: heap used right after a full GC, and the number
 * of broadcast variables whose blocks the driver's BlockManager still holds. A run that leaks (broadcasts
 * never destroyed, per-round state kept) shows both growing with the round number.
 */
public final class DriverFootprint implements RunListener {
  /** One sample. */
  public record Sample(int iteration, long heapAfterGcBytes, int liveBroadcasts) {}

  private final int every;
  private final List<Sample> samples = new ArrayList<>();

  public DriverFootprint(int every) {
    this.every = every;
  }

  @Override
  public void afterRound(DriverState state) {
    if (state.iteration() % every == 0) {
      samples.add(new Sample(state.iteration(), heapAfterGc(), settledLiveBroadcasts()));
    }
  }

  public List<Sample> samples() {
    return List.copyOf(samples);
  }

  static long heapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.gc();
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  /**
   * {@link #liveBroadcasts()} once Spark's ContextCleaner has removed what the collection just before released
   * (it does so on a thread of its own): read every 100 ms until two readings agree, for at most 3 s. A leaked
   * broadcast is never removed, so waiting cannot hide a leak; it only stops the count from depending on how far
   * the cleaner's thread had got.
   */
  static int settledLiveBroadcasts() {
    int count = liveBroadcasts();
    for (int i = 0; i < 30; i++) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return count;
      }
      int next = liveBroadcasts();
      if (next == count) {
        return count;
      }
      count = next;
    }
    return count;
  }

  /** Distinct broadcast ids among the blocks the driver's BlockManager holds. */
  static int liveBroadcasts() {
    scala.collection.Seq<BlockId> blocks = SparkEnv.get().blockManager()
        .getMatchingBlockIds(block -> block.isBroadcast());
    Set<Long> ids = new HashSet<>();
    scala.collection.Iterator<BlockId> it = blocks.iterator();
    while (it.hasNext()) {
      BlockId block = it.next();
      if (block instanceof BroadcastBlockId b) {
        ids.add(b.broadcastId());
      }
    }
    return ids.size();
  }

  /**
   * Least-squares slope of {@code y} over the samples' iterations (per 1,000 iterations), from the sample
   * {@code skip} on (the first samples include warm-up).
   */
  public static double slopePerThousand(List<Sample> samples, int skip, java.util.function.ToDoubleFunction<Sample> y) {
    List<Sample> s = samples.subList(Math.min(skip, samples.size()), samples.size());
    double n = s.size();
    double mx = s.stream().mapToDouble(Sample::iteration).average().orElse(0);
    double my = s.stream().mapToDouble(y).average().orElse(0);
    double num = 0;
    double den = 0;
    for (Sample p : s) {
      num += (p.iteration() - mx) * (y.applyAsDouble(p) - my);
      den += (p.iteration() - mx) * (p.iteration() - mx);
    }
    return n < 2 || den == 0 ? 0 : 1000 * num / den;
  }
}
