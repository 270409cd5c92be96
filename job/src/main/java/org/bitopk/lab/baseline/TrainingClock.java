package org.bitopk.lab.baseline;

/**
 * Seconds of training: a stopwatch that stands still while the test set is evaluated (or data is prepared), so
 * every system is charged for its training alone, however often it is evaluated.
 */
final class TrainingClock {
  private long startedNanos = -1;
  private long pausedNanos;
  private long pauseStart = -1;

  void start() {
    startedNanos = System.nanoTime();
  }

  boolean started() {
    return startedNanos >= 0;
  }

  void pause() {
    if (pauseStart < 0) {
      pauseStart = System.nanoTime();
    }
  }

  void resume() {
    if (pauseStart >= 0) {
      pausedNanos += System.nanoTime() - pauseStart;
      pauseStart = -1;
    }
  }

  /** Training seconds so far (0 before the start). */
  double seconds() {
    if (startedNanos < 0) {
      return 0;
    }
    long now = pauseStart >= 0 ? pauseStart : System.nanoTime();
    return (now - startedNanos - pausedNanos) / 1e9;
  }
}
