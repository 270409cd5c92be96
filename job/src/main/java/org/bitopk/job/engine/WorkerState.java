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
}
