package org.bitopk.job.checkpoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.bitopk.job.engine.ResumePoint;
import org.bitopk.job.engine.RunCounters;
import org.bitopk.job.engine.WorkerMemory;
import org.jspecify.annotations.Nullable;

/**
 * Everything the driver loop needs to continue a run at iteration t as if it had never stopped: the master
 * model x_t, the server residual e_s, each worker's residual e_i (and momentum buffer) as collected from the
 * executors at checkpoint time, the cumulative counters and the running means of the current epoch.
 * Minibatches are seeded from (seed, epoch, batch), so the iteration and the seed restore their random
 * streams; compressors that carry state across calls (randomk, dgc, adaptive sidco) have it saved here.
 *
 * <p>Immutable: arrays are copied in and out. A worker whose residual could not be collected (its executor
 * had just been lost) has a null residual and restarts from zero, which the run then counts as lost.
 */
public final class Checkpoint {
  private final String runId;
  private final String configDigest;
  private final long seed;
  private final int iteration;
  private final float[] master;
  private final float[] serverResidual;
  /** EF21's server gradient estimate g = mean g_i, or null (other uplinks). */
  private final float @Nullable [] serverEstimate;
  private final float[] @Nullable [] workerResiduals;
  private final float[] @Nullable [] workerVelocities;
  private final byte[] serverCompressorState;
  private final byte[] @Nullable [] workerCompressorStates;
  private final RunCounters counters;
  private final double epochLossSum;
  private final int epochRounds;

  private Checkpoint(Builder b) {
    this.runId = b.runId;
    this.configDigest = b.configDigest;
    this.seed = b.seed;
    this.iteration = b.iteration;
    this.master = b.master.clone();
    this.serverResidual = b.serverResidual.clone();
    this.serverEstimate = b.serverEstimate == null ? null : b.serverEstimate.clone();
    this.workerResiduals = deepCopy(b.workerResiduals);
    this.workerVelocities = deepCopy(b.workerVelocities);
    this.serverCompressorState = b.serverCompressorState.clone();
    this.workerCompressorStates = deepCopy(b.workerCompressorStates);
    this.counters = b.counters;
    this.epochLossSum = b.epochLossSum;
    this.epochRounds = b.epochRounds;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String runId() {
    return runId;
  }

  /** Digest of the settings that change the arithmetic; resume refuses a checkpoint of other settings. */
  public String configDigest() {
    return configDigest;
  }

  public long seed() {
    return seed;
  }

  /** The next round t to run; {@link #master()} is x_t. */
  public int iteration() {
    return iteration;
  }

  public int dimension() {
    return master.length;
  }

  public int workers() {
    return workerResiduals.length;
  }

  public float[] master() {
    return master.clone();
  }

  public float[] serverResidual() {
    return serverResidual.clone();
  }

  /** EF21's server gradient estimate, or null. */
  public float @Nullable [] serverEstimate() {
    return serverEstimate == null ? null : serverEstimate.clone();
  }

  /** Worker i's memory vector (e_i, or g_i under EF21), or null when it could not be collected. */
  public float @Nullable [] workerResidual(int worker) {
    float[] r = workerResiduals[worker];
    return r == null ? null : r.clone();
  }

  /** Worker i's momentum buffer, or null (no momentum, or not collected). */
  public float @Nullable [] workerVelocity(int worker) {
    float[] v = workerVelocities[worker];
    return v == null ? null : v.clone();
  }

  /** The downlink compressor's state (empty for a stateless one). */
  public byte[] serverCompressorState() {
    return serverCompressorState.clone();
  }

  /** Worker i's uplink compressor state, or null when it could not be collected. */
  public byte @Nullable [] workerCompressorState(int worker) {
    byte[] s = workerCompressorStates[worker];
    return s == null ? null : s.clone();
  }

  public RunCounters counters() {
    return counters;
  }

  public long cumulativeUpBytes() {
    return counters.upBytes();
  }

  public long cumulativeDownBytes() {
    return counters.downBytes();
  }

  public long lostResiduals() {
    return counters.lostResiduals();
  }

  public long replicaResyncs() {
    return counters.replicaResyncs();
  }

  /** The driver loop's state to continue from (arrays copied). */
  public ResumePoint toResumePoint() {
    List<WorkerMemory> workers = new ArrayList<>();
    for (int i = 0; i < workerResiduals.length; i++) {
      workers.add(new WorkerMemory(i, workerResidual(i), workerVelocity(i), workerCompressorState(i)));
    }
    return new ResumePoint(iteration, seed, master(), serverResidual(), serverCompressorState(), workers, counters,
        epochLossSum, epochRounds, serverEstimate());
  }

  /** Sum of the losses of the current epoch's rounds so far (the epoch's train loss is their mean). */
  public double epochLossSum() {
    return epochLossSum;
  }

  public int epochRounds() {
    return epochRounds;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Checkpoint c)) {
      return false;
    }
    return runId.equals(c.runId) && configDigest.equals(c.configDigest) && seed == c.seed
        && iteration == c.iteration && Arrays.equals(master, c.master)
        && Arrays.equals(serverResidual, c.serverResidual) && Arrays.equals(serverEstimate, c.serverEstimate) && Arrays.deepEquals(workerResiduals, c.workerResiduals)
        && Arrays.deepEquals(workerVelocities, c.workerVelocities)
        && Arrays.equals(serverCompressorState, c.serverCompressorState)
        && Arrays.deepEquals(workerCompressorStates, c.workerCompressorStates) && counters.equals(c.counters)
        && Double.doubleToLongBits(epochLossSum) == Double.doubleToLongBits(c.epochLossSum)
        && epochRounds == c.epochRounds;
  }

  @Override
  public int hashCode() {
    return Objects.hash(runId, iteration, Arrays.hashCode(master));
  }

  @Override
  public String toString() {
    return "Checkpoint{run=" + runId + ", iteration=" + iteration + ", dimension=" + master.length
        + ", workers=" + workerResiduals.length + "}";
  }

  private static float[][] deepCopy(float[][] arrays) {
    float[][] copy = new float[arrays.length][];
    for (int i = 0; i < arrays.length; i++) {
      copy[i] = arrays[i] == null ? null : arrays[i].clone();
    }
    return copy;
  }

  private static byte[][] deepCopy(byte[][] arrays) {
    byte[][] copy = new byte[arrays.length][];
    for (int i = 0; i < arrays.length; i++) {
      copy[i] = arrays[i] == null ? null : arrays[i].clone();
    }
    return copy;
  }

  /** Validating builder: every setter checks its argument, {@link #build()} checks the whole. */
  public static final class Builder {
    private String runId;
    private String configDigest = "";
    private long seed;
    private int iteration = -1;
    private float[] master;
    private float[] serverResidual;
    private float @Nullable [] serverEstimate;
    private float[] @Nullable [] workerResiduals;
    private float[] @Nullable [] workerVelocities;
    private byte[] serverCompressorState = new byte[0];
    private byte[] @Nullable [] workerCompressorStates;
    private RunCounters counters = RunCounters.ZERO;
    private double epochLossSum;
    private int epochRounds;

    private Builder() {
    }

    public Builder runId(String runId) {
      if (runId == null || runId.isEmpty()) {
        throw new IllegalArgumentException("run id must be non-empty");
      }
      this.runId = runId;
      return this;
    }

    public Builder configDigest(String digest) {
      this.configDigest = Objects.requireNonNull(digest, "config digest");
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder iteration(int iteration) {
      if (iteration < 0) {
        throw new IllegalArgumentException("iteration must be >= 0, got " + iteration);
      }
      this.iteration = iteration;
      return this;
    }

    public Builder master(float[] master) {
      this.master = Objects.requireNonNull(master, "master parameters");
      return this;
    }

    public Builder serverResidual(float[] residual) {
      this.serverResidual = Objects.requireNonNull(residual, "server residual");
      return this;
    }

    /** @param estimate EF21's server gradient estimate, or null (other uplinks) */
    public Builder serverEstimate(float @Nullable [] estimate) {
      this.serverEstimate = estimate;
      return this;
    }

    /** One entry per worker, in worker order; null entries for residuals that could not be collected. */
    public Builder workerResiduals(float[] @Nullable [] residuals) {
      this.workerResiduals = Objects.requireNonNull(residuals, "worker residuals");
      return this;
    }

    /** One entry per worker, in worker order; null entries without momentum. */
    public Builder workerVelocities(float[] @Nullable [] velocities) {
      this.workerVelocities = Objects.requireNonNull(velocities, "worker velocities");
      return this;
    }

    public Builder counters(RunCounters counters) {
      this.counters = Objects.requireNonNull(counters, "counters");
      return this;
    }

    public Builder serverCompressorState(byte[] state) {
      this.serverCompressorState = Objects.requireNonNull(state, "server compressor state");
      return this;
    }

    /** One entry per worker, in worker order; null entries for states that could not be collected. */
    public Builder workerCompressorStates(byte[] @Nullable [] states) {
      this.workerCompressorStates = Objects.requireNonNull(states, "worker compressor states");
      return this;
    }

    /** Everything of the driver loop's state: iteration, seed, models, memories, counters, epoch progress. */
    public Builder resumePoint(ResumePoint point) {
      int p = point.workers().size();
      float[][] residuals = new float[p][];
      float[][] velocities = new float[p][];
      byte[][] states = new byte[p][];
      for (WorkerMemory m : point.workers()) {
        residuals[m.worker()] = m.residual();
        velocities[m.worker()] = m.velocity();
        states[m.worker()] = m.compressorState();
      }
      return seed(point.seed()).iteration(point.iteration()).master(point.master())
          .serverResidual(point.serverResidual()).serverCompressorState(point.serverCompressorState())
          .serverEstimate(point.serverEstimate())
          .workerResiduals(residuals).workerVelocities(velocities).workerCompressorStates(states)
          .counters(point.counters()).epochProgress(point.epochLossSum(), point.epochRounds());
    }

    public Builder epochProgress(double lossSum, int rounds) {
      if (rounds < 0) {
        throw new IllegalArgumentException("epoch rounds must be >= 0, got " + rounds);
      }
      this.epochLossSum = lossSum;
      this.epochRounds = rounds;
      return this;
    }

    public Checkpoint build() {
      if (runId == null || iteration < 0 || master == null || serverResidual == null || workerResiduals == null) {
        throw new IllegalArgumentException("a checkpoint needs run id, iteration, master, server residual and "
            + "worker residuals");
      }
      if (workerVelocities == null) {
        workerVelocities = new float[workerResiduals.length][];
      }
      if (workerCompressorStates == null) {
        workerCompressorStates = new byte[workerResiduals.length][];
      }
      if (workerCompressorStates.length != workerResiduals.length) {
        throw new IllegalArgumentException("need one compressor state slot per worker, got "
            + workerCompressorStates.length + " for " + workerResiduals.length + " workers");
      }
      int d = master.length;
      if (serverResidual.length != d) {
        throw new IllegalArgumentException("server residual has " + serverResidual.length + " entries, model " + d);
      }
      if (workerResiduals.length < 1 || workerVelocities.length != workerResiduals.length) {
        throw new IllegalArgumentException("need one residual and one velocity slot per worker, got "
            + workerResiduals.length + " and " + workerVelocities.length);
      }
      checkLength("server gradient estimate", serverEstimate, d);
      for (int i = 0; i < workerResiduals.length; i++) {
        checkLength("worker " + i + " residual", workerResiduals[i], d);
        checkLength("worker " + i + " velocity", workerVelocities[i], d);
      }
      return new Checkpoint(this);
    }

    private static void checkLength(String what, float[] array, int d) {
      if (array != null && array.length != d) {
        throw new IllegalArgumentException(what + " has " + array.length + " entries, model " + d);
      }
    }
  }
}
