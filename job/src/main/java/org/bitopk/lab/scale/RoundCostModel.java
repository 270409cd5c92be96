package org.bitopk.lab.scale;

import java.util.ArrayList;
import java.util.List;

/**
 * The time of one synchronous round of the job as a sum of terms, each with what it is made of:
 *
 * <pre>
 *   compute    = ⌈P / slots⌉ · γ · d                          workers: gradient, error feedback, TopK, catch-up
 *   uplink     = (R · B_up + T · S_up) / BW                   everything enters through the driver's link
 *   driver     = a · R + b · d + c                            DriverCost: decode, average, server TopK, broadcast
 *   downlink   = (F · D · B_down + T · S_down) / BW           F copies of the update leave the driver
 *   latency    = m · L                                        messages on the round's critical path
 *   scheduling = σ · T + c₀                                   Spark's work per task and per job
 * </pre>
 *
 * with R the coordinates the driver receives (P·k sparse, P·d dense, fewer with a tree aggregation), D the update's
 * coordinates (k_down bidirectional, the union of the supports unidirectional, d dense), T the round's Spark tasks,
 * S_up and S_down Spark's own bytes per task into and out of the driver (status updates and result framing; launch,
 * task binary), BW the driver's link in bytes per second, L its one-way latency. γ, σ and c₀ are fitted on measured
 * rounds ({@link #fit}); a, b and c come from the driver's benchmark; B, S, F and m are given.
 */
public record RoundCostModel(DriverCost driver, double workerNanosPerElement, double nanosPerTask,
    double fixedNanos) {

  /** What the downlink sends: the server's TopK, the average itself, or everything both ways. */
  public enum Scheme { BIDIRECTIONAL, UNIDIRECTIONAL, DENSE }

  /**
   * A run on a cluster.
   *
   * @param slots workers computing at once (task slots)
   * @param bytesPerSecond the driver's link; {@link Double#POSITIVE_INFINITY} on loopback
   * @param latencySeconds one way
   * @param messages messages on the critical path per round (task launch, broadcast request and reply, result)
   * @param upBytesPerCoordinate B_up (sparse: index + value; dense runs send 4 bytes per coordinate)
   * @param tasks T: Spark tasks per round (each runs P / T workers)
   * @param sparkUpBytesPerTask S_up: Spark's bytes per task into the driver beyond the uplinks
   * @param sparkDownBytesPerTask S_down: Spark's bytes per task out of the driver beyond the update
   * @param overlap the fraction of k every worker shares (the union is s + P(k − s))
   * @param treeGroups 1: every worker's uplink goes to the driver; g &gt; 1: executors first add the uplinks of
   *     P / g workers each (Spark's treeAggregate), the driver receives g partial sums
   * @param broadcastCopies F: copies of the update that leave the driver (TorrentBroadcast: 1 … P)
   */
  public record Scenario(Scheme scheme, long dimension, int workers, long kUp, long kDown, int slots,
      double bytesPerSecond, double latencySeconds, int messages, double upBytesPerCoordinate,
      double downBytesPerCoordinate, int tasks, double sparkUpBytesPerTask, double sparkDownBytesPerTask,
      double overlap, int treeGroups, double broadcastCopies) {

    /** Coordinates in the union of the P supports: s + P(k − s), at most d. */
    long union(int workers) {
      long shared = Math.round(overlap * kUp);
      return Math.min(dimension, shared + workers * (kUp - shared));
    }

    /** R: the coordinates the driver decodes. */
    long received() {
      if (scheme == Scheme.DENSE) {
        return workers * dimension;
      }
      if (treeGroups <= 1) {
        return workers * kUp;
      }
      int perGroup = (workers + treeGroups - 1) / treeGroups;
      return treeGroups * union(perGroup);
    }

    /** D: the update's coordinates. */
    long update() {
      return switch (scheme) {
        case BIDIRECTIONAL -> kDown;
        case UNIDIRECTIONAL -> union(workers);
        case DENSE -> dimension;
      };
    }

    double upBytes() {
      double perCoordinate = scheme == Scheme.DENSE ? Float.BYTES : upBytesPerCoordinate;
      return received() * perCoordinate + tasks * sparkUpBytesPerTask;
    }

    double downBytes() {
      double perCoordinate = scheme == Scheme.DENSE ? Float.BYTES : downBytesPerCoordinate;
      return broadcastCopies * update() * perCoordinate + tasks * sparkDownBytesPerTask;
    }
  }

  /** A round's time by term, in seconds. */
  public record Breakdown(double compute, double uplink, double driver, double downlink, double latency,
      double scheduling, double treeStage) {
    public double total() {
      return compute + uplink + driver + downlink + latency + scheduling + treeStage;
    }
  }

  public Breakdown predict(Scenario s) {
    double waves = Math.ceil((double) s.workers() / s.slots());
    double compute = waves * workerNanosPerElement * s.dimension() * 1e-9;
    double driverSeconds = (driver.nanosPerReceivedCoordinate() * s.received()
        + driver.nanosPerElement() * s.dimension() + driver.fixedNanos()) * 1e-9;
    double treeStage = 0;
    if (s.treeGroups() > 1 && s.scheme() != Scheme.DENSE) {
      // Each combiner decodes and adds its group's uplinks (at the driver's rate per coordinate), received over
      // its own link, in parallel with the other combiners; one more stage: its messages, g more tasks and a
      // stage's fixed cost (c₀, as for the round's one stage).
      long perGroup = (s.workers() + s.treeGroups() - 1) / s.treeGroups();
      double coordinates = perGroup * (double) s.kUp();
      treeStage = driver.nanosPerReceivedCoordinate() * coordinates * 1e-9
          + coordinates * s.upBytesPerCoordinate() / s.bytesPerSecond() + 2 * s.latencySeconds()
          + (nanosPerTask * s.treeGroups() + fixedNanos) * 1e-9;
    }
    return new Breakdown(compute, s.upBytes() / s.bytesPerSecond(), driverSeconds,
        s.downBytes() / s.bytesPerSecond(), s.messages() * s.latencySeconds(),
        (nanosPerTask * s.tasks() + fixedNanos) * 1e-9, treeStage);
  }

  /** A measured round: its scenario and the median seconds per round. */
  public record Measured(Scenario scenario, double seconds) {}

  /**
   * γ, σ and c₀ by relative least squares on the measured rounds, the terms the model already knows (the driver's,
   * the transfers, the latency) taken as they are. When every point has the same number of tasks, σ·T cannot be
   * told from c₀: σ is then 0 and c₀ holds both.
   */
  public static RoundCostModel fit(DriverCost driver, List<Measured> points) {
    RoundCostModel driverOnly = new RoundCostModel(driver, 0, 0, 0);
    boolean tasksVary = points.stream().mapToInt(m -> m.scenario().tasks()).distinct().count() > 1;
    List<double[]> rows = new ArrayList<>();
    double[] seconds = new double[points.size()];
    double[] known = new double[points.size()];
    for (int i = 0; i < points.size(); i++) {
      Scenario s = points.get(i).scenario();
      double waves = Math.ceil((double) s.workers() / s.slots());
      rows.add(tasksVary ? new double[] {waves * s.dimension() * 1e-9, s.tasks() * 1e-9, 1e-9}
          : new double[] {waves * s.dimension() * 1e-9, 1e-9});
      seconds[i] = points.get(i).seconds();
      known[i] = driverOnly.predict(s).total();
    }
    double[] beta = RelativeLeastSquares.fit(rows, seconds, known);
    return tasksVary ? new RoundCostModel(driver, beta[0], beta[1], beta[2])
        : new RoundCostModel(driver, beta[0], 0, beta[1]);
  }

  /** predicted / measured − 1 for each point. */
  public double[] relativeErrors(List<Measured> points) {
    double[] out = new double[points.size()];
    for (int i = 0; i < points.size(); i++) {
      out[i] = predict(points.get(i).scenario()).total() / points.get(i).seconds() - 1;
    }
    return out;
  }
}
