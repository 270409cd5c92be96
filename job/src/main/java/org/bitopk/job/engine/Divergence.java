package org.bitopk.job.engine;

import java.util.Optional;

/**
 * Stops a run whose loss or gradient is no longer finite (typically a learning rate too large). Thrown in the
 * worker task, before the worker's residual is touched, so the executor state and the last checkpoint stay
 * those of the last good round; the driver reports it as {@link TrainingDivergedException}.
 */
final class Divergence {
  static final String MARKER = "bitopk-diverged:";

  private Divergence() {}

  static void check(int workerId, int iteration, double loss, float[] gradient) {
    if (!Double.isFinite(loss)) {
      throw new IllegalStateException(MARKER + " worker " + workerId + " got loss " + loss + " at iteration "
          + iteration);
    }
    for (int j = 0; j < gradient.length; j++) {
      if (!Float.isFinite(gradient[j])) {
        throw new IllegalStateException(MARKER + " worker " + workerId + " got gradient entry " + j + " = "
            + gradient[j] + " at iteration " + iteration);
      }
    }
  }

  static IllegalStateException overflow(int workerId, int iteration, IllegalArgumentException cause) {
    return new IllegalStateException(MARKER + " worker " + workerId + " at iteration " + iteration + ": "
        + cause.getMessage(), cause);
  }

  /** The divergence message inside a Spark job failure; empty when the failure is something else. */
  static Optional<String> find(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null) {
        int at = message.indexOf(MARKER);
        if (at >= 0) {
          String rest = message.substring(at + MARKER.length()).trim();
          int end = rest.indexOf('\n');
          return Optional.of(end < 0 ? rest : rest.substring(0, end).trim());
        }
      }
    }
    return Optional.empty();
  }
}
