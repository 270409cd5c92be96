package org.bitopk.lab.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A system's accuracy over its training clock and bytes, in the order measured (seconds and bytes never
 * decrease). The first point is the initial model at 0 s and 0 bytes, so accuracy at any time is defined. A system
 * that measures where its rounds' time goes also has, per point, the {@link RoundSplit} of the rounds since the
 * previous point.
 */
public final class Trace {
  private final List<TracePoint> points;
  /** Empty, or one per point. */
  private final List<RoundSplit> splits;

  private Trace(List<TracePoint> points, List<RoundSplit> splits) {
    this.points = List.copyOf(points);
    this.splits = List.copyOf(splits);
  }

  /** @throws IllegalArgumentException when seconds, bytes or rounds decrease from one point to the next */
  public static Trace of(List<TracePoint> points) {
    return of(points, List.of());
  }

  /**
   * @param splits empty, or per point the split of the rounds since the previous point
   * @throws IllegalArgumentException also when there are splits but not one per point, or one whose rounds are
   *     not the rounds between its point and the previous one
   */
  static Trace of(List<TracePoint> points, List<RoundSplit> splits) {
    if (!splits.isEmpty() && splits.size() != points.size()) {
      throw new IllegalArgumentException(splits.size() + " round splits for " + points.size() + " trace points");
    }
    for (int i = 0; i < splits.size(); i++) {
      long rounds = points.get(i).rounds() - (i == 0 ? points.get(0).rounds() : points.get(i - 1).rounds());
      if (splits.get(i).rounds() != rounds) {
        throw new IllegalArgumentException("the round split of trace point " + i + " covers " + splits.get(i)
            .rounds() + " rounds, the point " + rounds);
      }
    }
    for (int i = 1; i < points.size(); i++) {
      TracePoint a = points.get(i - 1);
      TracePoint b = points.get(i);
      if (b.seconds() < a.seconds() || b.bytes() < a.bytes() || b.rounds() < a.rounds()) {
        throw new IllegalArgumentException("trace point " + i + " goes back: " + a + " then " + b);
      }
    }
    return new Trace(points, splits);
  }

  public static Trace empty() {
    return new Trace(List.of(), List.of());
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

  /** Per point, the split of the rounds since the previous one; empty when the system does not measure it. */
  List<RoundSplit> splits() {
    return splits;
  }

  /** The split of all its rounds, when it has one. */
  Optional<RoundSplit> split() {
    return splits.stream().reduce(RoundSplit::plus);
  }

  public Optional<TracePoint> last() {
    return points.isEmpty() ? Optional.empty() : Optional.of(points.get(points.size() - 1));
  }

  /** A builder for systems that measure point after point. */
  static final class Builder {
    private final List<TracePoint> points = new ArrayList<>();
    private final List<RoundSplit> splits = new ArrayList<>();
    private boolean everySplit = true;

    Builder add(TracePoint p) {
      points.add(p);
      everySplit = false;
      return this;
    }

    /** A point with the split of the rounds since the previous one. */
    Builder add(TracePoint p, RoundSplit split) {
      points.add(p);
      splits.add(split);
      return this;
    }

    Trace build() {
      return Trace.of(points, everySplit ? splits : List.of());
    }
  }
}
