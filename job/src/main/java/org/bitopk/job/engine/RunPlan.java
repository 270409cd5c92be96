package org.bitopk.job.engine;

import java.util.Objects;

/**
 * Everything the driver loop needs, resolved once before it starts: the engine never looks at flags, modes or
 * defaults. Built with {@link #builder()}, whose setters validate; immutable.
 */
public final class RunPlan {
  private final String mode;
  private final int workers;
  private final int tasks;
  private final long totalRounds;
  private final int roundsPerEpoch;
  private final UplinkSettings uplink;
  private final DownlinkStrategy downlink;
  private final double learningRate;
  private final double lrDecay;
  private final int consistencyCheckEvery;
  private final int updateWindow;
  private final int snapshotEvery;
  private final boolean xi;
  private final int evalEvery;
  private final int roundsBetweenEvaluations;
  private final long seed;
  private final String divergenceAdvice;
  private final long speculationDeferMillis;
  private final int[] captureRounds;

  private RunPlan(Builder b) {
    this.mode = Objects.requireNonNull(b.mode, "mode");
    this.uplink = Objects.requireNonNull(b.uplink, "uplink");
    this.downlink = Objects.requireNonNull(b.downlink, "downlink");
    if (b.workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1, got " + b.workers);
    }
    if (b.tasks < 1 || b.tasks > b.workers) {
      throw new IllegalArgumentException("--tasks: expected 1 <= tasks <= workers (" + b.workers + "), got " + b.tasks);
    }
    if (b.roundsPerEpoch < 1 || b.totalRounds < 0) {
      throw new IllegalArgumentException("rounds per epoch must be >= 1 and total rounds >= 0, got "
          + b.roundsPerEpoch + " and " + b.totalRounds);
    }
    if (b.snapshotEvery < 1 || b.updateWindow < b.snapshotEvery) {
      throw new IllegalArgumentException("need 1 <= snapshot-every (" + b.snapshotEvery + ") <= update-window ("
          + b.updateWindow + ")");
    }
    this.workers = b.workers;
    this.tasks = b.tasks;
    this.totalRounds = b.totalRounds;
    this.roundsPerEpoch = b.roundsPerEpoch;
    this.learningRate = b.learningRate;
    this.lrDecay = b.lrDecay;
    this.consistencyCheckEvery = b.consistencyCheckEvery;
    this.updateWindow = b.updateWindow;
    this.snapshotEvery = b.snapshotEvery;
    this.xi = b.xi;
    if (b.evalEvery < 1) {
      throw new IllegalArgumentException("eval-every must be >= 1, got " + b.evalEvery);
    }
    this.evalEvery = b.evalEvery;
    if (b.roundsBetweenEvaluations < 0) {
      throw new IllegalArgumentException("rounds between evaluations must be >= 0, got " + b.roundsBetweenEvaluations);
    }
    this.roundsBetweenEvaluations = b.roundsBetweenEvaluations;
    this.seed = b.seed;
    this.divergenceAdvice = b.divergenceAdvice;
    if (b.speculationDeferMillis < 0) {
      throw new IllegalArgumentException("speculation defer time must be >= 0, got " + b.speculationDeferMillis);
    }
    this.speculationDeferMillis = b.speculationDeferMillis;
    int previous = 0;
    for (int r : b.captureRounds) {
      if (r <= previous || r > b.totalRounds) {
        throw new IllegalArgumentException("capture rounds must be ascending 1-based rounds within the run's "
            + b.totalRounds + ", got " + java.util.Arrays.toString(b.captureRounds));
      }
      previous = r;
    }
    this.captureRounds = b.captureRounds.clone();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Label of the mode in metrics and reports: bidirectional, unidirectional or dense. */
  public String mode() { return mode; }
  /** P, the algorithm's number of workers. */
  public int workers() { return workers; }
  /** S, the Spark tasks per round the P workers are packed into. */
  public int tasks() { return tasks; }
  public long totalRounds() { return totalRounds; }
  public int roundsPerEpoch() { return roundsPerEpoch; }
  public UplinkSettings uplink() { return uplink; }
  public DownlinkStrategy downlink() { return downlink; }
  public int consistencyCheckEvery() { return consistencyCheckEvery; }
  public int updateWindow() { return updateWindow; }
  public int snapshotEvery() { return snapshotEvery; }
  public boolean xi() { return xi; }
  /** Evaluate on the test set every N epochs (the last epoch always). */
  public int evalEvery() { return evalEvery; }

  /**
   * Whether the test set is evaluated after round t inside an epoch (every {@code roundsBetweenEvaluations} rounds,
   * {@link EvaluationCadence}); the epoch ends and the last round evaluate as {@link #evalEvery()} says.
   */
  public boolean evaluatesWithinEpochAfter(long t) {
    long done = t + 1;
    return roundsBetweenEvaluations > 0 && done % roundsBetweenEvaluations == 0 && done % roundsPerEpoch != 0
        && done < totalRounds;
  }

  public long seed() { return seed; }
  /** Appended to the divergence message, e.g. where the last good checkpoint is; may be empty. */
  public String divergenceAdvice() { return divergenceAdvice; }
  /**
   * How long a second task attempt that lacks a worker's state waits for the original attempt on the executor
   * holding it to finish (and Spark to kill the copy) before it starts that worker afresh ({@link StateLocations}).
   */
  public long speculationDeferMillis() { return speculationDeferMillis; }

  /** The 1-based rounds whose compensated vectors c_i the workers report for a {@link VectorCapture}. */
  public int[] captureRounds() { return captureRounds.clone(); }

  /** Whether the workers report their compensated vectors in round t (0-based), i.e. 1-based round t + 1. */
  public boolean capturesRound(int t) {
    return java.util.Arrays.binarySearch(captureRounds, t + 1) >= 0;
  }

  /** Learning rate of an epoch (0-based): lr · decay^epoch. */
  public double learningRate(int epochIndex) {
    return learningRate * Math.pow(lrDecay, epochIndex);
  }

  /** Validating builder. */
  public static final class Builder {
    private String mode;
    private int workers;
    private int tasks;
    private long totalRounds;
    private int roundsPerEpoch;
    private UplinkSettings uplink;
    private DownlinkStrategy downlink;
    private double learningRate = Double.NaN;
    private double lrDecay = 1.0;
    private int consistencyCheckEvery;
    private int updateWindow = 32;
    private int snapshotEvery = 32;
    private boolean xi;
    private int evalEvery = 1;
    private int roundsBetweenEvaluations;
    private long seed;
    private String divergenceAdvice = "";
    private long speculationDeferMillis = 30_000;
    private int[] captureRounds = new int[0];

    private Builder() {}

    public Builder mode(String v) { mode = v; return this; }
    public Builder workers(int v) { workers = v; return this; }
    public Builder tasks(int v) { tasks = v; return this; }

    public Builder rounds(long total, int perEpoch) {
      totalRounds = total;
      roundsPerEpoch = perEpoch;
      return this;
    }

    public Builder uplink(UplinkSettings v) { uplink = v; return this; }
    public Builder downlink(DownlinkStrategy v) { downlink = v; return this; }

    public Builder learningRate(double lr, double decay) {
      if (!(lr > 0 && Double.isFinite(lr)) || !(decay > 0 && decay <= 1)) {
        throw new IllegalArgumentException("learning rate must be > 0 and decay in (0, 1], got " + lr + ", " + decay);
      }
      learningRate = lr;
      lrDecay = decay;
      return this;
    }

    public Builder consistencyCheckEvery(int v) {
      if (v < 0) {
        throw new IllegalArgumentException("consistency-check-every must be >= 0, got " + v);
      }
      consistencyCheckEvery = v;
      return this;
    }

    public Builder window(int updateWindow, int snapshotEvery) {
      this.updateWindow = updateWindow;
      this.snapshotEvery = snapshotEvery;
      return this;
    }

    public Builder xi(boolean v) { xi = v; return this; }
    public Builder evalEvery(int v) { evalEvery = v; return this; }
    /** Evaluate also every v rounds inside epochs; 0 (the default) for epoch ends only. */
    public Builder roundsBetweenEvaluations(int v) { roundsBetweenEvaluations = v; return this; }
    public Builder seed(long v) { seed = v; return this; }
    public Builder divergenceAdvice(String v) { divergenceAdvice = Objects.requireNonNull(v); return this; }
    public Builder speculationDeferMillis(long v) { speculationDeferMillis = v; return this; }
    /** 1-based rounds, ascending, within the run; validated by {@link #build()}. */
    public Builder captureRounds(int... v) { captureRounds = v.clone(); return this; }

    public RunPlan build() {
      if (Double.isNaN(learningRate)) {
        throw new IllegalArgumentException("learning rate not set");
      }
      return new RunPlan(this);
    }
  }
}
