package org.bitopk.job.engine;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The driver loop's complete state at a consistent cut between rounds: what a checkpoint saves and what
 * {@link Trainer#resumeFrom} continues from. Arrays are shared, not copied: the checkpoint that holds one copies.
 *
 * @param iteration the next round t; {@code master} is x_t
 * @param serverResidual e_s (zeros unless the downlink keeps one)
 * @param serverCompressorState the downlink compressor's state (empty when stateless)
 * @param workers one memory per worker, in worker order; a memory with null arrays was not collected
 * @param epochLossSum sum of the losses of the current epoch's rounds so far
 * @param epochRounds rounds of the current epoch done so far
 * @param serverEstimate EF21's g = mean g_i kept by the server, or null (other uplinks)
 */
public record ResumePoint(int iteration, long seed, float[] master, float[] serverResidual,
    byte[] serverCompressorState, List<WorkerMemory> workers, RunCounters counters, double epochLossSum,
    int epochRounds, float @Nullable [] serverEstimate) {

  public ResumePoint {
    if (iteration < 0) {
      throw new IllegalArgumentException("iteration must be >= 0, got " + iteration);
    }
    Objects.requireNonNull(master, "master");
    Objects.requireNonNull(serverResidual, "server residual");
    Objects.requireNonNull(counters, "counters");
    if (serverResidual.length != master.length) {
      throw new IllegalArgumentException("server residual has " + serverResidual.length + " entries, model "
          + master.length);
    }
    if (serverEstimate != null && serverEstimate.length != master.length) {
      throw new IllegalArgumentException("server gradient estimate has " + serverEstimate.length + " entries, model "
          + master.length);
    }
    workers = List.copyOf(workers);
    for (int i = 0; i < workers.size(); i++) {
      if (workers.get(i).worker() != i) {
        throw new IllegalArgumentException("memory " + i + " belongs to worker " + workers.get(i).worker());
      }
    }
  }
}
