package org.bitopk.job.engine;

import org.bitopk.compression.Compressor;
import org.bitopk.compression.ErrorFeedback;

/** Per-worker state that lives on an executor across iterations: residual, compressor, momentum buffer. */
final class WorkerState {
  final ErrorFeedback feedback;
  final Compressor compressor;
  /** Momentum buffer (worker-side momentum, applied before error feedback), or null without momentum. */
  final float[] velocity;
  int lastIteration = -1;

  WorkerState(ErrorFeedback feedback, Compressor compressor, float[] velocity) {
    this.feedback = feedback;
    this.compressor = compressor;
    this.velocity = velocity;
  }

  /** A worker's state at the start of a run: zero residual, zero momentum, compressor seeded per worker. */
  static WorkerState fresh(UplinkSettings uplink, int workerId, int dimension) {
    return new WorkerState(
        uplink.errorFeedback() ? ErrorFeedback.enabled(dimension) : ErrorFeedback.disabled(dimension),
        compressor(uplink, workerId),
        uplink.momentum() > 0f ? new float[dimension] : null);
  }

  /**
   * A worker's state restored from a checkpoint; null residual or velocity (not collected) start from zero.
   * The compressor restarts from its seed.
   */
  static WorkerState restored(UplinkSettings uplink, int workerId, int dimension, float[] residual,
      float[] velocity) {
    WorkerState fresh = fresh(uplink, workerId, dimension);
    ErrorFeedback feedback = residual != null && uplink.errorFeedback() ? ErrorFeedback.restore(residual) : fresh.feedback;
    float[] v = fresh.velocity != null && velocity != null ? velocity.clone() : fresh.velocity;
    return new WorkerState(feedback, fresh.compressor, v);
  }

  private static Compressor compressor(UplinkSettings uplink, int workerId) {
    return uplink.compressor().create(uplink.seed() * 1_000_003L + workerId);
  }
}
