package org.bitopk.lab.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A system's accuracy over its training clock and bytes, in the order measured (seconds and bytes never
 * decrease). The first point is the initial model at 0 s and 0 bytes, so accuracy at any time is defined.
 */
public final class Trace {
  private final List<TracePoint> points;

  private Trace(List<TracePoint> points) {
    this.points = List.copyOf(points);
  }

  /** @throws IllegalArgumentException when seconds, bytes or rounds decrease from one point to the next */
  public static Trace of(List<TracePoint> points) {
    for (int i = 1; i < points.size(); i++) {
      TracePoint a = points.get(i - 1);
      TracePoint b = points.get(i);
      if (b.seconds() < a.seconds() || b.bytes() < a.bytes() || b.rounds() < a.rounds()) {
        throw new IllegalArgumentException("trace point " + i + " goes back: " + a + " then " + b);
      }
    }
    return new Trace(points);
  }

  public static Trace empty() {
    return new Trace(List.of());
  }

  public List<TracePoint> points() {
    return points;
  }

  public boolean isEmpty() {
    return points.isEmpty();
  }

  /** The first evaluation whose accuracy is at least {@code target}: when the system reached it. */
  public Optional<TracePoint> firstReaching(double target) {
    return points.stream().filter(p -> p.accuracy() >= target).findFirst();
  }

  /** The last evaluation at or before {@code seconds} of training clock: the model one had by then. */
  public Optional<TracePoint> at(double seconds) {
    TracePoint found = null;
    for (TracePoint p : points) {
      if (p.seconds() <= seconds) {
        found = p;
      }
    }
    return Optional.ofNullable(found);
  }

  public Optional<TracePoint> last() {
    return points.isEmpty() ? Optional.empty() : Optional.of(points.get(points.size() - 1));
  }

  /** A builder for systems that measure point after point. */
  static final class Builder {
    private final List<TracePoint> points = new ArrayList<>();

    Builder add(TracePoint p) {
      points.add(p);
      return this;
    }

    Trace build() {
      return Trace.of(points);
    }
  }
}
