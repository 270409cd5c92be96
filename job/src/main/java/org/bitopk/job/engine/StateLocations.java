package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where each worker's state lives, as the driver knows it at the start of a round: the executor (block manager
 * {@code host:port}) that ran the attempt whose result the driver used, and which executors are alive.
 *
 * <p>It lets a task attempt that does not find a worker's state tell a speculative copy (the original attempt
 * still runs on the live executor that holds the state) from a retry after that executor was lost. The copy
 * defers: it waits, up to {@code deferMillis}, to be killed when the original succeeds, instead of computing
 * from a fresh residual a result that would replace the original's and lose the residual.
 *
 * @param holders per worker, the executor holding its state, or null (none yet)
 * @param alive the executors alive when the round started
 * @param deferMillis how long a copy waits for the original before it gives up and starts afresh
 */
public record StateLocations(@Nullable String[] holders, List<String> alive, long deferMillis) implements Serializable {

  public StateLocations {
    holders = holders.clone();
    alive = List.copyOf(alive);
    if (deferMillis < 0) {
      throw new IllegalArgumentException("defer time must be >= 0, got " + deferMillis);
    }
  }

  /**
   * Whether an attempt on {@code executor} that lacks worker {@code worker}'s usable state should defer to the
   * attempt on the executor that holds it: only a second attempt (a speculative copy or a retry) while the holder
   * is alive.
   */
  boolean shouldDefer(int worker, String executor, int attemptNumber) {
    String holder = holders[worker];
    return attemptNumber > 0 && holder != null && !holder.equals(executor) && alive.contains(holder);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StateLocations s && Arrays.equals(holders, s.holders) && alive.equals(s.alive)
        && deferMillis == s.deferMillis;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(holders) * 31 + alive.hashCode();
  }
}
