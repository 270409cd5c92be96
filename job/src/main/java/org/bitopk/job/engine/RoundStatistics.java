package org.bitopk.job.engine;

import java.util.Arrays;
import java.util.List;

/**
 * What the workers' reports of one round add up to: bytes, mean loss, mean achieved k, worst δ_up, mean worker
 * times, lost residuals, resyncs (and of them, new replicas whose own x_0 was not the driver's), redone steps, and
 * the states returned for a move, and the tasks' critical path.
 *
 * @param departing workers whose report carried their state (their group moves before the next round)
 * @param taskPathMs makespan of the tasks' own work (each task's workers back to back) list-scheduled in
 *     partition order onto the task slots: time_job_ms minus it estimates Spark's own cost
 */
record RoundStatistics(long upBytes, double meanLoss, double meanAchievedK, double deltaUp, double gradientMs,
    double compressMs, double catchUpMs, int lostResiduals, int replicaResyncs, int rejectedStarts, int rolledBack,
    int departing, double taskPathMs) {

  static RoundStatistics of(List<WorkerReport> reports, int tasks, int slots) {
    long upBytes = 0;
    double loss = 0;
    double achieved = 0;
    double deltaUp = 0;
    long gradientNs = 0;
    long compressNs = 0;
    long catchUpNs = 0;
    int lost = 0;
    int resync = 0;
    int rejectedStarts = 0;
    int rolledBack = 0;
    int departing = 0;
    long[] taskNanos = new long[tasks];
    for (WorkerReport r : reports) {
      upBytes += r.uplinkBytes();
      loss += r.loss;
      achieved += r.achievedK;
      deltaUp = Math.max(deltaUp, NormRatio.of(r.residualNorm, r.compensatedNorm));
      gradientNs += r.gradientNanos;
      compressNs += r.compressNanos;
      catchUpNs += r.catchUpNanos;
      lost += r.residualLost ? 1 : 0;
      resync += r.resynchronised ? 1 : 0;
      rejectedStarts += r.startRejected ? 1 : 0;
      rolledBack += r.rolledBack ? 1 : 0;
      departing += r.departing != null ? 1 : 0;
      taskNanos[r.task] += r.workNanos();
    }
    int p = reports.size();
    return new RoundStatistics(upBytes, loss / p, achieved / p, deltaUp, gradientNs / 1e6 / p, compressNs / 1e6 / p,
        catchUpNs / 1e6 / p, lost, resync, rejectedStarts, rolledBack, departing, makespanMs(taskNanos, slots));
  }

  /** Makespan of the tasks' times when Spark hands them, in partition order, to {@code slots} threads. */
  static double makespanMs(long[] taskNanos, int slots) {
    long[] free = new long[Math.max(1, slots)];
    for (long nanos : taskNanos) {
      int next = 0;
      for (int i = 1; i < free.length; i++) {
        if (free[i] < free[next]) {
          next = i;
        }
      }
      free[next] += nanos;
    }
    return Arrays.stream(free).max().orElse(0) / 1e6;
  }
}
