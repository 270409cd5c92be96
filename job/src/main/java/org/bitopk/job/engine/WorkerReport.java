package org.bitopk.job.engine;

import org.jspecify.annotations.Nullable;

/**
 * What one worker returns to the driver for one round: the encoded uplink plus diagnostics. Immutable, built
 * once by the task that ran the worker ({@link Builder}). Serialized with Kryo (see the job's registrator: its
 * field serializer writes final fields and Spark's instantiator needs no constructor); the uplink travels as
 * SparseCodec bytes, so its length is the real wire size.
 */
public final class WorkerReport {
  final int workerId;
  final int iteration;
  /** The Spark partition (task) that ran this worker this round. */
  final int task;
  final byte[] uplink;
  /** Running-statistics steps (batch norm), dense over the statistics indices; empty when there are none. */
  final float[] statistics;
  final double loss;
  final int targetK;
  final int achievedK;
  final double compensatedNorm;
  final double residualNorm;
  final long gradientNanos;
  final long compressNanos;
  /** Bringing the task's replica to x_t: counted once per task, on its first worker. */
  final long catchUpNanos;
  final int updatesApplied;
  final boolean resynchronised;
  /** The task's new replica built an x_0 that was not the driver's and loaded the snapshot instead. */
  final boolean startRejected;
  /** The worker's state was missing or unusable on the executor: its residual restarted from zero. */
  final boolean residualLost;
  /** Another attempt had already taken this round: the state was rolled back before this one. */
  final boolean rolledBack;
  /**
   * The bytes of the state a departed executor handed over that this attempt took through the driver (the worker
   * moved here outside the driver's placement), else 0.
   */
  final long handedOverBytes;
  /** The task attempt that advanced the worker's state: the driver passes it back as the expected one. */
  final long stateToken;
  /** The executor (block manager host:port) that ran this worker: it holds the worker's state now. */
  final String executor;
  /** Checksum of the replica at x_t, or 0 when no check was asked for this iteration. */
  final long checksum;
  /** Dense c_i, only when ξ is computed or the round is captured; else null. */
  final float @Nullable [] compensated;
  /** Dense lr·g_i, only when ξ is computed; else null. */
  final float @Nullable [] scaledGradient;
  /**
   * The worker's state after this step when its group leaves this executor before the next round (the driver
   * asked for it), else null: the state that attempt left, so the one the driver uses is the one it accepts.
   */
  final @Nullable WorkerMemory departing;

  private WorkerReport(Builder b) {
    workerId = b.workerId;
    iteration = b.iteration;
    task = b.task;
    uplink = b.uplink;
    statistics = b.statistics;
    loss = b.loss;
    targetK = b.step.targetK();
    achievedK = b.step.achievedK();
    compensatedNorm = b.step.compensatedNorm();
    residualNorm = b.step.residualNorm();
    gradientNanos = b.gradientNanos;
    compressNanos = b.compressNanos;
    catchUpNanos = b.catchUpNanos;
    updatesApplied = b.catchUp.updatesApplied();
    resynchronised = b.catchUp.resynchronised();
    startRejected = b.catchUp.startRejected();
    residualLost = b.residualLost;
    rolledBack = b.rolledBack;
    handedOverBytes = b.handedOverBytes;
    stateToken = b.stateToken;
    executor = b.executor;
    checksum = b.checksum;
    compensated = b.compensated;
    scaledGradient = b.scaledGradient;
    departing = b.departing;
  }

  public int workerId() {
    return workerId;
  }

  public int iteration() {
    return iteration;
  }

  /** Bytes this worker sent: the encoded sparse vector plus 4 bytes per running statistic. */
  public int uplinkBytes() {
    return uplink.length + Float.BYTES * statistics.length;
  }

  /** The task's own time for this worker: catch-up (first worker of a task only), gradient, compression. */
  long workNanos() {
    return catchUpNanos + gradientNanos + compressNanos;
  }

  /** Collects a report on the executor, part by part as the task learns them; {@link #build} once. */
  static final class Builder {
    private final int workerId;
    private final int iteration;
    private final String executor;
    private int task;
    private byte[] uplink;
    private float[] statistics;
    private double loss;
    private UplinkMemory.Step step;
    private long gradientNanos;
    private long compressNanos;
    private long catchUpNanos;
    private Replica.CatchUp catchUp = new Replica.CatchUp(0, false);
    private boolean residualLost;
    private boolean rolledBack;
    private long handedOverBytes;
    private long stateToken;
    private long checksum;
    private float @Nullable [] compensated;
    private float @Nullable [] scaledGradient;
    private @Nullable WorkerMemory departing;

    Builder(int workerId, int iteration, String executor) {
      this.workerId = workerId;
      this.iteration = iteration;
      this.executor = executor;
    }

    /** The worker's message: its encoded uplink, statistics beside it, its loss and the compression step's figures. */
    Builder message(byte[] uplink, float[] statistics, double loss, UplinkMemory.Step step) {
      this.uplink = uplink;
      this.statistics = statistics;
      this.loss = loss;
      this.step = step;
      return this;
    }

    /**
     * @param compensated dense c_i for ξ and the capture, null when the round asks for neither
     * @param scaledGradient dense lr·g_i, ξ's denominator, null without ξ
     */
    Builder dense(float @Nullable [] compensated, float @Nullable [] scaledGradient) {
      this.compensated = compensated;
      this.scaledGradient = scaledGradient;
      return this;
    }

    /** How the attempt found the worker's state and the token it left on it. */
    Builder attempt(boolean residualLost, boolean rolledBack, long stateToken) {
      this.residualLost = residualLost;
      this.rolledBack = rolledBack;
      this.stateToken = stateToken;
      return this;
    }

    /** The bytes of the handed-over state this attempt took ({@link TaskAttempt.Admitted#handedOverBytes}). */
    Builder handedOver(long bytes) {
      this.handedOverBytes = bytes;
      return this;
    }

    /** The worker's state after the step, for the executor it moves to next round. */
    Builder departing(WorkerMemory state) {
      this.departing = state;
      return this;
    }

    Builder times(long gradientNanos, long compressNanos) {
      this.gradientNanos = gradientNanos;
      this.compressNanos = compressNanos;
      return this;
    }

    /** The task that ran the worker and its replica's checksum (0 without a check). */
    Builder task(int task, long checksum) {
      this.task = task;
      this.checksum = checksum;
      return this;
    }

    /** The task's catch-up, reported on its first worker only. */
    Builder catchUp(long nanos, Replica.CatchUp catchUp) {
      this.catchUpNanos = nanos;
      this.catchUp = catchUp;
      return this;
    }

    WorkerReport build() {
      if (uplink == null) {
        throw new IllegalStateException("worker " + workerId + " of round " + iteration + " has no message");
      }
      return new WorkerReport(this);
    }
  }
}
