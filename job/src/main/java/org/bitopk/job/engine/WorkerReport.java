package org.bitopk.job.engine;

/**
 * What one worker returns to the driver for one iteration: the encoded uplink plus diagnostics. Serialized
 * with Kryo (see the job's registrator); the uplink travels as SparseCodec bytes, so its length is the real
 * wire size.
 */
public final class WorkerReport {
  final int workerId;
  final int iteration;
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
  final long catchUpNanos;
  final int updatesApplied;
  final boolean resynchronised;
  final boolean residualLost;
  /** Checksum of the replica at x_t, or 0 when no check was asked for this iteration. */
  final long checksum;
  /** Dense c_i and lr·g_i, only when ξ is computed. */
  final float[] compensated;
  final float[] scaledGradient;

  WorkerReport(int workerId, int iteration, byte[] uplink, float[] statistics, double loss, int targetK,
      int achievedK, double compensatedNorm, double residualNorm, long gradientNanos, long compressNanos,
      long catchUpNanos, int updatesApplied, boolean resynchronised, boolean residualLost, long checksum,
      float[] compensated, float[] scaledGradient) {
    this.workerId = workerId;
    this.iteration = iteration;
    this.uplink = uplink;
    this.statistics = statistics;
    this.loss = loss;
    this.targetK = targetK;
    this.achievedK = achievedK;
    this.compensatedNorm = compensatedNorm;
    this.residualNorm = residualNorm;
    this.gradientNanos = gradientNanos;
    this.compressNanos = compressNanos;
    this.catchUpNanos = catchUpNanos;
    this.updatesApplied = updatesApplied;
    this.resynchronised = resynchronised;
    this.residualLost = residualLost;
    this.checksum = checksum;
    this.compensated = compensated;
    this.scaledGradient = scaledGradient;
  }

  public int workerId() {
    return workerId;
  }

  /** Bytes this worker sent: the encoded sparse vector plus 4 bytes per running statistic. */
  public int uplinkBytes() {
    return uplink.length + Float.BYTES * statistics.length;
  }
}
