package org.bitopk.lab.baseline;

/**
 * One evaluation of a compared system: after {@code rounds} rounds (one minibatch per worker each; for the
 * single-JVM fit, as many examples as that many rounds of the distributed systems), {@code seconds} of
 * training clock (evaluation excluded) and {@code bytes} moved, the test accuracy was {@code accuracy}.
 */
public record TracePoint(long rounds, double seconds, long bytes, double accuracy, double testLoss) {
  public TracePoint {
    if (rounds < 0 || !(seconds >= 0) || bytes < 0 || !(accuracy >= 0 && accuracy <= 1)) {
      throw new IllegalArgumentException("trace point out of range: rounds " + rounds + ", seconds " + seconds
          + ", bytes " + bytes + ", accuracy " + accuracy);
    }
  }
}
