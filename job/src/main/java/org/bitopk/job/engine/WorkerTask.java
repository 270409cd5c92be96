package org.bitopk.job.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.problem.ObjectiveFactory;

/**
 * The per-round task: one call per partition, i.e. per group of workers. Brings a pooled replica to x_t once,
 * then, worker after worker on that replica, computes the worker's gradient, applies its residual and the
 * uplink compressor, and returns one encoded uplink per worker.
 *
 * <p>The closure holds only settings and broadcast handles (see the closure-size test), never data or
 * parameters: the shards come from the cached partition, the model from the executor's replica pool.
 */
public final class WorkerTask<S> implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(WorkerTask.class);

  private final String runId;
  private final RoundSettings round;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final DownlinkView downlink;
  /** Per worker, the attempt whose state after the previous round the driver used ({@link WorkerState}). */
  private final long[] expectedTokens;
  private final StateLocations locations;

  public WorkerTask(String runId, RoundSettings round, ObjectiveFactory<S> factory, UplinkSettings uplink,
      DownlinkView downlink, long[] expectedTokens, StateLocations locations) {
    this.runId = runId;
    this.round = round;
    this.factory = factory;
    this.uplink = uplink;
    this.downlink = downlink;
    this.expectedTokens = expectedTokens;
    this.locations = locations;
  }

  /** Runs the workers of group {@code partition}; {@link RoundJobFunction} calls it in the round's Spark job. */
  public Iterator<WorkerReport> call(int partition, Iterator<S> shards) {
    if (!shards.hasNext()) {
      throw new IllegalStateException("partition " + partition + " holds no worker shard");
    }
    int t = downlink.iteration();
    long token = attemptToken();
    String executor = executorId();
    RunState run = ExecutorRegistry.run(runId);
    run.forgetUpdatesBefore(downlink.firstUpdate());
    Replica<S> replica = run.borrow(factory, t);
    try {
      long start = System.nanoTime();
      Replica.CatchUp catchUp = replica.catchUp(downlink, run);
      long sum = round.checksum() ? ParameterChecksum.of(replica.parameters) : 0L;
      long caughtUp = System.nanoTime();
      List<WorkerReport> reports = new ArrayList<>();
      while (shards.hasNext()) {
        WorkerReport report = step(run, replica, shards.next(), t, token, executor);
        report.task = partition;
        report.checksum = sum;
        reports.add(report);
      }
      WorkerReport first = reports.get(0);
      first.catchUpNanos = caughtUp - start;
      first.updatesApplied = catchUp.updatesApplied();
      first.resynchronised = catchUp.resynchronised();
      return reports.iterator();
    } finally {
      run.release(replica);
    }
  }

  /** One worker's round on the task's replica, which every worker of the task shares (all compute at x_t). */
  private WorkerReport step(RunState run, Replica<S> replica, S shard, int t, long token, String executor) {
    int workerId = factory.workerId(shard);
    WorkerReport report = new WorkerReport();
    report.workerId = workerId;
    report.iteration = t;
    report.executor = executor;
    WorkerState present = run.worker(workerId);
    if ((present == null || !present.usableFor(t, expectedTokens[workerId]))
        && locations.shouldDefer(workerId, executor, attemptNumber())) {
      awaitOriginalAttempt(workerId, t);
    }
    long begin = System.nanoTime();
    float[] gradient = replica.gradient;
    report.loss = replica.objective.gradient(shard, round.epoch(), round.batchIndex(), gradient);
    long computed = System.nanoTime();
    Divergence.check(workerId, t, report.loss, gradient);

    int dimension = gradient.length;
    int[] statisticsIndices = run.statisticsIndices(factory);
    float[] statistics = new float[statisticsIndices.length];
    for (int i = 0; i < statisticsIndices.length; i++) {
      statistics[i] = gradient[statisticsIndices[i]];
      gradient[statisticsIndices[i]] = 0f;
    }
    report.statistics = statistics;
    float learningRate = round.learningRate();
    synchronized (run.lock(workerId)) {
      WorkerState state = run.worker(workerId);
      long expected = expectedTokens[workerId];
      WorkerState.Admission admission = state == null ? null : state.admit(t, expected);
      if (admission == WorkerState.Admission.OBSOLETE) {
        throw new IllegalStateException("round " + t + " of worker " + workerId + " is obsolete on this executor "
            + "(its state is at round " + state.round() + "): a duplicate attempt of a finished round");
      }
      if (state == null || admission == WorkerState.Admission.UNUSABLE) {
        // New executor, a state more than one round old, or one advanced by an attempt the driver discarded.
        report.residualLost = !(state == null && t == 0 && expected == WorkerState.INITIAL);
        state = WorkerState.fresh(uplink, workerId, dimension, t);
        run.putWorker(workerId, state);
      }
      report.rolledBack = admission == WorkerState.Admission.ROLLED_BACK;
      state.beginStep();
      float[] input = state.momentumInput(gradient, uplink.momentum());
      UplinkMemory.Step step;
      try {
        step = state.memory.step(input, learningRate, state.compressor, uplink.targetK());
      } catch (IllegalArgumentException overflow) {
        state.abortStep();
        // inputs are finite and of the right shape here, so this is residual + lr * input overflowing
        throw Divergence.overflow(workerId, t, overflow);
      } catch (RuntimeException e) {
        state.abortStep();
        throw e;
      }
      state.commit(t, token);
      report.stateToken = token;
      TestFaults.afterStep(t, workerId);
      report.uplink = SparseCodec.encode(withoutStatistics(step.sent(), statisticsIndices), ValueFormat.FP32);
      report.targetK = step.targetK();
      report.achievedK = step.achievedK();
      report.compensatedNorm = step.compensatedNorm();
      report.residualNorm = step.residualNorm();
      if (round.reportsCompensated()) {
        // c_i bit for bit: sent and residual are disjoint and sent + residual == c (ErrorFeedback), so adding
        // the residual to the dense sent vector only ever adds a value to 0f.
        float[] compensated = step.sent().toDense();
        float[] residual = state.memory.memory();
        for (int j = 0; j < dimension; j++) {
          compensated[j] += residual[j];
        }
        report.compensated = compensated;
      }
      if (round.collectXi()) {
        float[] scaled = new float[dimension];
        for (int j = 0; j < dimension; j++) {
          scaled[j] = learningRate * gradient[j]; // ξ's denominator is Σ lr·g_i, momentum or not
        }
        report.scaledGradient = scaled;
      }
    }
    long compressed = System.nanoTime();
    report.gradientNanos = computed - begin;
    report.compressNanos = compressed - computed;
    return report;
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

  /**
   * A second attempt without the worker's state while the executor that holds it is alive: most likely a
   * speculative copy of a slow original. Waits for Spark to kill this copy once the original succeeds. It goes on
   * from a fresh state, the worker counted as lost, as soon as the driver no longer knows the holding executor (it
   * was lost during the round: this attempt is a retry), or after the defer time (the original is stuck).
   */
  private void awaitOriginalAttempt(int workerId, int t) {
    TaskContext context = TaskContext.get();
    String holder = locations.holders()[workerId];
    LOG.warn("worker {} of round {}: attempt {} lacks the worker's state and defers to the original attempt on "
        + "{} for up to {} ms", workerId, t, context.attemptNumber(), holder, locations.deferMillis());
    long start = System.nanoTime();
    long deadline = start + locations.deferMillis() * 1_000_000L;
    long nextCheck = start;
    while (System.nanoTime() < deadline) {
      context.killTaskIfInterrupted();
      if (System.nanoTime() >= nextCheck) {
        if (!registered(holder)) {
          LOG.warn("worker {} of round {}: the executor {} holding its state is gone; starting afresh", workerId, t,
              holder);
          return;
        }
        nextCheck = System.nanoTime() + 500_000_000L;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        context.killTaskIfInterrupted();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while worker " + workerId + " of round " + t
            + " deferred to its original attempt", e);
      }
    }
  }

  /** Whether the driver still knows the executor {@code hostPort} (it forgets a lost executor at once). */
  private static boolean registered(String hostPort) {
    org.apache.spark.SparkEnv env = org.apache.spark.SparkEnv.get();
    if (env == null) {
      return false;
    }
    for (org.apache.spark.storage.BlockManagerId id : scala.collection.JavaConverters
        .mapAsJavaMapConverter(env.blockManager().master().getMemoryStatus()).asJava().keySet()) {
      if (id.hostPort().equals(hostPort)) {
        return true;
      }
    }
    return false;
  }

  private static int attemptNumber() {
    TaskContext context = TaskContext.get();
    return context == null ? 0 : context.attemptNumber();
  }

  /** This executor's block manager address, as the driver's status tracker names executors. */
  private static String executorId() {
    org.apache.spark.SparkEnv env = org.apache.spark.SparkEnv.get();
    return env == null ? "local" : env.blockManager().blockManagerId().hostPort();
  }

  /** Spark's id of this task attempt (unique in the application); outside Spark, a fresh number per call. */
  private static long attemptToken() {
    TaskContext context = TaskContext.get();
    return context != null ? context.taskAttemptId() : TestFaults.localToken();
  }
}
