package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.TrainingProblem;
import org.jspecify.annotations.Nullable;

/**
 * The driver loop (the parameter server). Each round t ({@link #round}): one Spark job over the S worker groups
 * whose tasks bring their replica to x_t and return one encoded uplink per worker; the driver averages, hands the
 * average to the plan's downlink strategy, applies the update to its float[] master model with
 * {@link SparseUpdates}, and broadcasts the encoded update for round t + 1. No dense model is shipped: the executors
 * build x_0 themselves and check it against the driver's checksum ({@link ReplicaStart}); only replicas that fall
 * behind, are lost, or start a resumed run (or whose own x_0 differs) load the periodic dense snapshot.
 *
 * <p>Where the algorithm is (error feedback on both sides, with C the compressor):
 * <ul>
 *   <li>worker i: c = e_i + lr·g_i, sent = C(c), e_i = c − sent, in {@link WorkerTask#step} through
 *       {@link WorkerState#step} (EF21 and Artemis keep a gradient estimate instead: {@link GradientEstimate});
 *   <li>server: a = mean of the sent vectors, c = e_s + a, p = C(c), e_s = c − p, in
 *       {@link ServerAggregator#aggregate} through {@link CompressedDownlink} (the other downlinks:
 *       {@link DownlinkStrategy}; EF21 and Artemis' server memory: {@link ServerGradientEstimate}).
 * </ul>
 * Both sides do the arithmetic in {@link org.bitopk.compression.ErrorFeedback#step ErrorFeedback.step}:
 * c = residual + scale·input, sent = C(c), residual = c − sent.
 */
public final class Trainer<S> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Trainer.class);

  private final JavaSparkContext sc;
  private final RunPlan plan;
  private final TrainingProblem<S> problem;
  private final String runId;
  private final List<RunListener> listeners;
  private ResumePoint resume;
  private VectorCapture capture;
  /** The driver's aggregation threads when given, else {@link AggregationThreads#of} the Spark configuration. */
  private OptionalInt aggregationThreads = OptionalInt.empty();
  private Optional<FaultInjector> injectedFaults = Optional.empty();
  /** The faults of this run's tasks: the injected ones, else those the Spark setting names, else none. */
  private FaultInjector faults = FaultInjector.NONE;

  private ObjectiveFactory<S> factory;
  /** The worker groups' RDD, placed again when executors come and go. */
  private ElasticGroups<S> elastic;
  /** Workers whose state moved to another executor so far. */
  private long movedWorkers;
  /** Per executor that registered during the run and has worked, the rounds from its registration to its work. */
  private final List<Integer> roundsToWork = new ArrayList<>();
  private float[] master;
  private ServerAggregator server;
  private int iteration;
  private RunCounters counters = RunCounters.ZERO;
  private double epochLossSum;
  private int epochRounds;
  /** Per worker, the task attempt whose uplink the driver applied last (see {@link WorkerState}). */
  private long[] acceptedTokens;
  /** Per worker, the executor that ran the accepted attempt (see {@link StateLocations}). */
  private String[] holders;

  public Trainer(JavaSparkContext sc, RunPlan plan, TrainingProblem<S> problem, String runId,
      List<RunListener> listeners) {
    if (plan.workers() != problem.workers()) {
      throw new IllegalArgumentException("the plan has " + plan.workers() + " workers, the problem "
          + problem.workers());
    }
    this.sc = sc;
    this.plan = plan;
    this.problem = problem;
    this.runId = runId;
    this.listeners = List.copyOf(listeners);
  }

  /**
   * Continues from {@code point} instead of starting at x_0: master model, server residual and compressor, the
   * workers' memories (installed on the executors before the first round), counters and the current epoch's
   * running loss. Same settings and seed, so the rounds that follow are those of the original run.
   */
  public Trainer<S> resumeFrom(ResumePoint point) {
    this.resume = point;
    return this;
  }

  /** Where the compensated vectors of the plan's capture rounds go; required when the plan lists any. */
  public Trainer<S> captureTo(VectorCapture sink) {
    this.capture = sink;
    return this;
  }

  /**
   * Decodes and sums the uplinks on this many of the driver's threads instead of the count of
   * {@link AggregationThreads}: the run's bits do not depend on it.
   */
  public Trainer<S> aggregationThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("aggregation threads = " + threads + "; expected at least 1");
    }
    this.aggregationThreads = OptionalInt.of(threads);
    return this;
  }

  /**
   * Injects {@code faults} into the worker tasks instead of those the Spark setting {@value FaultInjector#SETTING}
   * names (none in a run): tests prove with it that retried attempts change nothing.
   */
  public Trainer<S> injectFaults(FaultInjector faults) {
    this.injectedFaults = Optional.of(faults);
    return this;
  }

  /** Runs all rounds; on success the run's executor state is dropped, on failure too (best effort). */
  public RunSummary run() {
    if (plan.captureRounds().length > 0 && capture == null) {
      throw new IllegalStateException("the plan captures rounds " + Arrays.toString(plan.captureRounds())
          + " but no VectorCapture was given");
    }
    faults = injectedFaults.orElseGet(() -> FaultInjector.of(sc.getConf()));
    factory = problem.objectiveFactory();
    int t0 = start(factory.dimension());
    elastic = new ElasticGroups<>(problem.shards(), plan.tasks(), runId, factory, plan.uplink(), t0);
    long started = System.nanoTime();
    long total = plan.totalRounds();
    Progress progress = new Progress(t0, total);
    try (DownlinkWindow window = new DownlinkWindow(sc, plan.updateWindow(), plan.snapshotEvery())) {
      window.start(t0, master, resume == null ? ReplicaStart.builtOnExecutors(master) : ReplicaStart.SNAPSHOT);
      if (resume != null) {
        WorkerMemories.restore(sc, elastic.rdd(), runId, factory, plan.uplink(), resume.workers(), t0);
      }
      DriverView view = new DriverView();
      for (RunListener l : listeners) {
        l.onStart(view);
      }
      for (long tl = t0; tl < total; tl++) {
        int t = Math.toIntExact(tl);
        IterationRecord record = round(t, window);
        progress.iterationMs[t - t0] = record.timeTotalMs();
        boolean stop = false;
        for (RunListener l : listeners) {
          l.onIteration(record, view);
        }
        for (RunListener l : listeners) {
          stop |= l.stopRequested(view);
        }
        progress.roundsRun++;
        epochLossSum += record.loss();
        epochRounds++;
        progress.lastGap = record.optimalityGap();
        boolean epochEnd = (t + 1) % plan.roundsPerEpoch() == 0;
        boolean last = tl + 1 == total || stop;
        if (epochEnd || last) {
          EpochRecord epoch = endEpoch(t, epochEnd, last, progress);
          for (RunListener l : listeners) {
            l.onEpoch(epoch, view);
          }
        }
        for (RunListener l : listeners) {
          l.afterRound(view);
        }
        if (stop) {
          break;
        }
      }
      RunSummary summary = summary(progress, (System.nanoTime() - started) / 1e9);
      for (RunListener l : listeners) {
        l.onFinish(summary, view);
      }
      return summary;
    } finally {
      forgetExecutorState();
      elastic.release();
    }
  }

  /** The server's uplink memory at the start of a run. */
  private static ServerUplinkMemory freshServerMemory(UplinkSettings uplink, int dimension) {
    return uplink.feedback().keepsGradientEstimate() ? ServerGradientEstimate.fresh(uplink, dimension)
        : ServerUplinkMemory.NONE;
  }

  /**
   * The server's uplink memory continuing a checkpointed run.
   *
   * @param estimate the checkpoint's g (EF21, Artemis), not kept; ignored by the other feedbacks
   */
  private static ServerUplinkMemory resumedServerMemory(UplinkSettings uplink, float @Nullable [] estimate) {
    return uplink.feedback().keepsGradientEstimate() ? ServerGradientEstimate.resume(uplink, estimate)
        : ServerUplinkMemory.NONE;
  }

  /** Sets the driver state to x_0 or to the resume point; returns the first round. */
  private int start(int dimension) {
    int workers = plan.workers();
    int threads = aggregationThreads.orElseGet(() -> AggregationThreads.of(sc.getConf()));
    acceptedTokens = new long[workers];
    Arrays.fill(acceptedTokens, WorkerState.INITIAL);
    holders = new String[workers];
    if (resume == null) {
      master = problem.initialParameters();
      server = new ServerAggregator(dimension, workers, factory.statisticsIndices(),
          freshServerMemory(plan.uplink(), dimension),
          plan.downlink().open(dimension, RandomStreams.server(plan.seed())), threads);
      iteration = 0;
    } else {
      if (resume.workers().size() != workers || resume.seed() != plan.seed()) {
        throw new IllegalArgumentException("--resume: the checkpoint is of " + resume.workers().size()
            + " workers, seed " + resume.seed() + "; this run has " + workers + " workers, seed " + plan.seed());
      }
      if (resume.iteration() > plan.totalRounds()) {
        throw new IllegalArgumentException("cannot resume at iteration " + resume.iteration() + " of a run of "
            + plan.totalRounds());
      }
      if (plan.uplink().feedback().keepsGradientEstimate() && resume.serverEstimate() == null) {
        throw new IllegalArgumentException("--resume: the checkpoint holds no server gradient estimate for "
            + "--uplink-feedback " + plan.uplink().feedback().cliName());
      }
      master = resume.master().clone();
      server = new ServerAggregator(dimension, workers, factory.statisticsIndices(),
          resumedServerMemory(plan.uplink(), resume.serverEstimate()),
          plan.downlink().resume(dimension, RandomStreams.server(plan.seed()), resume.serverResidual(),
              resume.serverCompressorState()), threads);
      iteration = resume.iteration();
      counters = resume.counters();
      epochLossSum = resume.epochLossSum();
      epochRounds = resume.epochRounds();
    }
    if (master.length != dimension) {
      throw new IllegalStateException("initial parameters have " + master.length + " entries, model " + dimension);
    }
    return iteration;
  }

  /**
   * Round t: the workers' job (each worker's step, {@link WorkerTask}), the server's aggregate
   * ({@link ServerAggregator#aggregate}), the update applied to the master model x_t, and published for round t + 1.
   */
  private IterationRecord round(int t, DownlinkWindow window) {
    long start = System.nanoTime();
    sc.setLocalProperty(RoundJob.ROUND_PROPERTY, Integer.toString(t));
    ElasticGroups.Move move;
    List<WorkerReport> reports;
    long jobStart;
    double lr = plan.learningRate(t / plan.roundsPerEpoch());
    RoundSettings settings = settings(t, lr);
    try {
      move = elastic.beforeRound(t, acceptedTokens, holders);
      DownlinkView view = window.view(t);
      WorkerTask<S> task = task(settings, view, elastic.departing());
      elastic.duringRound(window, view, faults);
      jobStart = System.nanoTime();
      reports = RoundJob.run(elastic.roundRdd(), task, plan, t, lr);
    } finally {
      sc.setLocalProperty(RoundJob.ROUND_PROPERTY, null);
    }
    long jobEnd = System.nanoTime();
    move = move.plus(ElasticGroups.Move.handedOverIn(reports));
    movedWorkers += move.workers();
    List<ExecutorArrivals.FirstWork> firstWork = elastic.afterRound(t, reports);
    firstWork.forEach(arrived -> roundsToWork.add(arrived.rounds()));
    inspect(t, settings, reports);
    OptionalDouble gap = problem.optimalityGap(server.centralModel(master));   // at x_t
    ServerAggregator.Round aggregate = aggregate(reports, settings);
    SparseUpdates.apply(master, aggregate.update());
    long aggregated = System.nanoTime();
    publish(t, aggregate, window);
    long published = System.nanoTime();
    acceptAttempts(reports);
    // after the round's clock: an evaluation is no part of the round's time
    Optional<Evaluation> evaluation = plan.evaluatesWithinEpochAfter(t)
        ? Optional.of(problem.evaluate(server.centralModel(master))) : Optional.empty();
    return record(t, lr, reports, aggregate, gap, move, firstWork, new IterationRecord.Times(
        (jobEnd - jobStart) / 1e6, (aggregated - jobEnd) / 1e6, (published - aggregated) / 1e6,
        (published - start) / 1e6), evaluation);
  }

  private RoundSettings settings(int t, double lr) {
    boolean check = plan.consistencyCheckEvery() > 0 && t % plan.consistencyCheckEvery() == 0;
    return new RoundSettings(t / plan.roundsPerEpoch(), t % plan.roundsPerEpoch(), (float) lr, check, plan.xi(),
        plan.capturesRound(t));
  }

  /** The round's task: settings and broadcast handles only (see {@link WorkerTask}). */
  private WorkerTask<S> task(RoundSettings settings, DownlinkView downlink, int[] departing) {
    return new WorkerTask<>(runId, settings, factory, plan.uplink(), downlink, acceptedTokens.clone(),
        new StateLocations(holders, aliveExecutors(), plan.speculationDeferMillis()), faults, departing);
  }

  /** The replicas' consistency check and the capture of c_i, in the rounds that have them. */
  private void inspect(int t, RoundSettings settings, List<WorkerReport> reports) {
    if (settings.checksum()) {
      verifyReplicas(t, reports);
    }
    if (settings.captureVector()) {
      captureVectors(t, settings.learningRate(), reports);
    }
  }

  private ServerAggregator.Round aggregate(List<WorkerReport> reports, RoundSettings settings) {
    return plan.xi() ? server.aggregateMeasuringXi(reports, plan.uplink().targetK(), settings.learningRate())
        : server.aggregate(reports, settings.learningRate());
  }

  /** Round t's update becomes the replicas' way to x_{t+1} (with a dense snapshot when one is due). */
  private void publish(int t, ServerAggregator.Round aggregate, DownlinkWindow window) {
    window.publish(t, aggregate.encoded());
    window.maybeSnapshot(t + 1, master);
    iteration = t + 1;
  }

  /** The attempts whose uplinks the driver used, and their executors: the states the next round expects. */
  private void acceptAttempts(List<WorkerReport> reports) {
    for (WorkerReport r : reports) {
      acceptedTokens[r.workerId] = r.stateToken;
      holders[r.workerId] = r.executor;
    }
  }

  /** The round's record, its counters added to the run's. */
  private IterationRecord record(int t, double lr, List<WorkerReport> reports, ServerAggregator.Round aggregate,
      OptionalDouble gap, ElasticGroups.Move move, List<ExecutorArrivals.FirstWork> firstWork,
      IterationRecord.Times times, Optional<Evaluation> evaluation) {
    RoundStatistics workers = RoundStatistics.of(reports, plan.tasks(), sc.defaultParallelism());
    if (workers.rejectedStarts() > 0) {
      LOG.warn("round {}: {} new replica(s) built an x_0 whose checksum is not the driver's (another model file or "
          + "numeric library on their executors?) and loaded the dense snapshot instead, {} bytes each", t,
          workers.rejectedStarts(), (long) Float.BYTES * master.length);
    }
    long payload = aggregate.encoded().length;
    RunCounters round = new RunCounters(workers.upBytes(), payload,
        payload * plan.workers() + (long) workers.replicaResyncs() * Float.BYTES * master.length,
        workers.lostResiduals(), workers.replicaResyncs(), workers.rolledBack());
    counters = counters.plus(round);
    return IterationRecord.of(runId, plan, t, lr, workers, aggregate, round, gap, move, firstWork, times,
        evaluation);
  }

  /** Hands round t's accepted c_i to the capture. */
  private void captureVectors(int t, float lr, List<WorkerReport> reports) {
    for (WorkerReport r : reports) {
      try {
        capture.capture(t + 1, r.workerId, lr, r.compensated);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /** Block manager addresses of the executors alive now (the driver's own included in local mode). */
  private List<String> aliveExecutors() {
    List<String> alive = new ArrayList<>();
    for (org.apache.spark.SparkExecutorInfo info : sc.sc().statusTracker().getExecutorInfos()) {
      alive.add(info.host() + ":" + info.port());
    }
    return alive;
  }

  /** Closes the epoch that round t ends (or the run's last, partial one), evaluating when due. */
  private EpochRecord endEpoch(int t, boolean complete, boolean last, Progress progress) {
    int epochNumber = t / plan.roundsPerEpoch() + 1;
    boolean evaluate = last || epochNumber % plan.evalEvery() == 0;
    Evaluation evaluation = evaluate ? problem.evaluate(server.centralModel(master)) : null;
    progress.lastTrainLoss = epochLossSum / epochRounds;
    if (evaluation != null) {
      progress.lastEvaluation = evaluation;
    }
    progress.epochsDone = epochNumber;
    epochLossSum = 0;
    epochRounds = 0;
    return new EpochRecord(runId, plan.mode(), plan.workers(), epochNumber, t + 1L, progress.lastTrainLoss,
        evaluation == null ? null : evaluation.loss(), evaluation == null ? null : evaluation.accuracy(),
        counters.upBytes(), counters.downBytes(), counters.downDeliveredBytes(), complete ? null : Boolean.TRUE);
  }

  private RunSummary summary(Progress progress, double seconds) {
    OptionalDouble finalGap = problem.optimalityGap(server.centralModel(master));
    long total = iteration;   // the plan's rounds, or fewer when a listener stopped the run
    int d = master.length;
    Evaluation last = progress.lastEvaluation;
    return new RunSummary(runId, problem.name(), plan.mode(), plan.workers(), plan.tasks(), d, total,
        progress.epochsDone, seconds, progress.lastTrainLoss, last == null ? null : last.loss(),
        last == null ? null : last.accuracy(),
        finalGap.isPresent() ? Double.valueOf(finalGap.getAsDouble()) : progress.lastGap, counters,
        total * plan.workers() * 4L * d, total * 4L * d,
        SteadyPace.of(progress.iterationMs, progress.roundsRun), movedWorkers, List.copyOf(roundsToWork));
  }

  private void verifyReplicas(int t, List<WorkerReport> reports) {
    long expected = ParameterChecksum.of(master);
    for (WorkerReport r : reports) {
      if (r.checksum != expected) {
        throw new IllegalStateException("replica consistency check failed at iteration " + t + ": worker "
            + r.workerId + " computed on parameters with checksum " + Long.toHexString(r.checksum)
            + " but the driver's x_" + t + " has " + Long.toHexString(expected));
      }
    }
  }

  private void forgetExecutorState() {
    String id = runId;
    StateHandover.forget(id);
    try {
      elastic.rdd().foreachPartition(ignored -> ExecutorRegistry.forget(id));
    } catch (RuntimeException e) {
      // The context may be shutting down after a failure; the state dies with the executors then.
    }
    ExecutorRegistry.forget(id);
  }

  /** What the loop carries from epoch to epoch for the summary. */
  private final class Progress {
    final double[] iterationMs;
    double lastTrainLoss = Double.NaN;
    Evaluation lastEvaluation;
    Double lastGap;
    int epochsDone;
    /** Rounds run by this invocation (fewer than planned when a listener stopped the run). */
    int roundsRun;

    Progress(int t0, long total) {
      this.iterationMs = new double[(int) Math.max(0, total - t0)];
      this.epochsDone = t0 / plan.roundsPerEpoch();
    }
  }

  /** The driver state handed to listeners. */
  private final class DriverView implements DriverState {
    @Override
    public String runId() {
      return runId;
    }

    @Override
    public int iteration() {
      return iteration;
    }

    @Override
    public float[] masterParameters() {
      return master.clone();
    }

    @Override
    public float[] modelParameters() {
      float[] model = server.centralModel(master);
      return model == master ? master.clone() : model;
    }

    @Override
    public float[] serverResidual() {
      return server.residual();
    }

    @Override
    public long seed() {
      return plan.seed();
    }

    @Override
    public RunCounters counters() {
      return counters;
    }

    @Override
    public ResumePoint resumePoint() {
      List<WorkerMemory> workers = WorkerMemories.collect(elastic.rdd(), runId, factory, plan.workers(), iteration,
          acceptedTokens.clone());
      return new ResumePoint(iteration, plan.seed(), master.clone(), server.residual(), server.compressorState(),
          workers, counters, epochLossSum, epochRounds, server.estimate());
    }
  }
}
