package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.job.problem.ObjectiveFactory;
import org.jspecify.annotations.Nullable;

/**
 * The per-round task: one call per partition, i.e. per group of workers. Brings a pooled replica to x_t once,
 * then, worker after worker on that replica, takes the worker's step ({@link #step}: gradient, error-feedback
 * step, encoding) and returns one encoded uplink per worker.
 *
 * <p>The closure holds only settings and broadcast handles (see the closure-size test), never data or
 * parameters: the shards come from the cached partition, the model from the executor's replica pool. A worker
 * whose group leaves its executor before the next round ({@link ElasticGroups}) returns its state after the
 * step with its report; a worker that arrives finds its state installed by the partition's RDD
 * ({@link ArrivingStates}). States of workers that moved away are dropped here a round later.
 */
public final class WorkerTask<S> implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String runId;
  private final RoundSettings round;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final DownlinkView downlink;
  /** Per worker, the attempt whose state after the previous round the driver used ({@link WorkerState}). */
  private final long[] expectedTokens;
  private final StateLocations locations;
  private final FaultInjector faults;
  /** The workers whose group leaves its executor before the next round: their reports carry their state. */
  private final int[] departing;

  public WorkerTask(String runId, RoundSettings round, ObjectiveFactory<S> factory, UplinkSettings uplink,
      DownlinkView downlink, long[] expectedTokens, StateLocations locations) {
    this(runId, round, factory, uplink, downlink, expectedTokens, locations, FaultInjector.NONE);
  }

  /** @param faults what a test injects into the attempts ({@link FaultInjector#NONE} in a run) */
  public WorkerTask(String runId, RoundSettings round, ObjectiveFactory<S> factory, UplinkSettings uplink,
      DownlinkView downlink, long[] expectedTokens, StateLocations locations, FaultInjector faults) {
    this(runId, round, factory, uplink, downlink, expectedTokens, locations, faults, new int[0]);
  }

  /** @param departing the workers, in increasing order, whose reports carry their state after the step */
  WorkerTask(String runId, RoundSettings round, ObjectiveFactory<S> factory, UplinkSettings uplink,
      DownlinkView downlink, long[] expectedTokens, StateLocations locations, FaultInjector faults, int[] departing) {
    this.departing = departing.clone();
    this.runId = runId;
    this.round = round;
    this.factory = factory;
    this.uplink = uplink;
    this.downlink = downlink;
    this.expectedTokens = expectedTokens;
    this.locations = locations;
    this.faults = faults;
  }

  /** Runs the workers of group {@code partition}; {@link RoundJobFunction} calls it in the round's Spark job. */
  public Iterator<WorkerReport> call(int partition, Iterator<S> shards) {
    if (!shards.hasNext()) {
      throw new IllegalStateException("partition " + partition + " holds no worker shard");
    }
    int t = downlink.iteration();
    TaskAttempt attempt = TaskAttempt.current(t, expectedTokens, locations, uplink, faults);
    RunState run = ExecutorRegistry.run(runId);
    run.forgetUpdatesBefore(downlink.firstUpdate());
    run.forgetWorkersBefore(t - 1);
    Replica<S> replica = run.borrow(factory, t);
    try {
      long start = System.nanoTime();
      Replica.CatchUp catchUp = replica.catchUp(downlink, run, faults);
      long sum = round.checksum() ? ParameterChecksum.of(replica.parameters) : 0L;
      long caughtUp = System.nanoTime();
      List<WorkerReport.Builder> workers = new ArrayList<>();
      while (shards.hasNext()) {
        workers.add(step(run, replica, shards.next(), attempt).task(partition, sum));
      }
      workers.get(0).catchUp(caughtUp - start, catchUp);
      List<WorkerReport> reports = new ArrayList<>();
      for (WorkerReport.Builder worker : workers) {
        reports.add(worker.build());
      }
      return reports.iterator();
    } finally {
      run.release(replica);
    }
  }

  /**
   * One worker's round on the task's replica, which every worker of the task shares (all compute at x_t): the
   * gradient g, then the memory's step c = e + lr·g, sent = C(c), e = c − sent ({@link WorkerState#step}; EF21 and
   * Artemis: {@link GradientEstimate}), then the message encoded. Which state the attempt may step is
   * {@link TaskAttempt}'s business.
   */
  private WorkerReport.Builder step(RunState run, Replica<S> replica, S shard, TaskAttempt attempt) {
    int workerId = factory.workerId(shard);
    int t = attempt.round();
    attempt.deferIfStateElsewhere(run, workerId);
    long begin = System.nanoTime();
    float[] gradient = replica.gradient;
    double loss = replica.objective.gradient(shard, round.epoch(), round.batchIndex(), gradient);
    long computed = System.nanoTime();
    Divergence.check(workerId, t, loss, gradient);
    int[] statisticsIndices = run.statisticsIndices(factory);
    float[] statistics = takeStatistics(gradient, statisticsIndices);
    WorkerReport.Builder report = new WorkerReport.Builder(workerId, t, attempt.executor());
    synchronized (run.lock(workerId)) {
      TaskAttempt.Admitted admitted = attempt.admit(runId, run, workerId, gradient.length);
      WorkerState state = admitted.state();
      UplinkMemory.Step step = state.step(gradient, round.learningRate(), uplink, workerId, t);
      long token = attempt.commit(state, workerId);
      byte[] message = SparseCodec.encodeExactly(withoutStatistics(step.sent(), statisticsIndices), uplink.values());
      report.message(message, statistics, loss, step)
          .attempt(admitted.residualLost(), admitted.rolledBack(), token).handedOver(admitted.handedOverBytes())
          .dense(compensated(step, state), scaledGradient(gradient));
      if (Arrays.binarySearch(departing, workerId) >= 0) {
        report.departing(state.saved(workerId));
      }
    }
    return report.times(computed - begin, System.nanoTime() - computed);
  }

  /**
   * Running statistics (batch norm's mean and variance steps) travel densely beside the message: taken out of the
   * gradient (set to 0 there) before the compression step.
   */
  private static float[] takeStatistics(float[] gradient, int[] statisticsIndices) {
    float[] statistics = new float[statisticsIndices.length];
    for (int i = 0; i < statisticsIndices.length; i++) {
      statistics[i] = gradient[statisticsIndices[i]];
      gradient[statisticsIndices[i]] = 0f;
    }
    return statistics;
  }

  /** Dense c_i for ξ and the capture, or null when the round asks for neither. */
  private float @Nullable [] compensated(UplinkMemory.Step step, WorkerState state) {
    if (!round.reportsCompensated()) {
      return null;
    }
    // c_i bit for bit: sent and residual are disjoint and sent + residual == c (ErrorFeedback), so adding the
    // residual to the dense sent vector only ever adds a value to 0f.
    float[] compensated = step.sent().toDense();
    float[] residual = state.memory.memory();
    for (int j = 0; j < compensated.length; j++) {
      compensated[j] += residual[j];
    }
    return compensated;
  }

  /** Dense lr·g_i, ξ's denominator (momentum or not), or null without ξ. */
  private float @Nullable [] scaledGradient(float[] gradient) {
    if (!round.collectXi()) {
      return null;
    }
    float learningRate = round.learningRate();
    float[] scaled = new float[gradient.length];
    for (int j = 0; j < gradient.length; j++) {
      scaled[j] = learningRate * gradient[j];
    }
    return scaled;
  }

  /**
   * The sent vector without the statistics coordinates: they travel densely beside it. Only a dense uplink
   * selects them (their c is exactly 0 on every worker), and counting them there too counted them twice.
   */
  static SparseVector withoutStatistics(SparseVector sent, int[] statisticsIndices) {
    if (statisticsIndices.length == 0) {
      return sent;
    }
    int[] indices = sent.indices();
    float[] values = sent.values();
    int[] keptIndices = new int[indices.length];
    float[] keptValues = new float[indices.length];
    int n = 0;
    int s = 0;
    for (int i = 0; i < indices.length; i++) {
      while (s < statisticsIndices.length && statisticsIndices[s] < indices[i]) {
        s++;
      }
      if (s < statisticsIndices.length && statisticsIndices[s] == indices[i]) {
        continue;
      }
      keptIndices[n] = indices[i];
      keptValues[n++] = values[i];
    }
    return n == indices.length ? sent
        : SparseVector.of(sent.dimension(), Arrays.copyOf(keptIndices, n), Arrays.copyOf(keptValues, n));
  }
}
