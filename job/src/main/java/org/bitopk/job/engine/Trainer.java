package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.Density;
import org.bitopk.job.Mode;
import org.bitopk.job.TrainingConfig;
import org.bitopk.job.checkpoint.Checkpoint;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.TrainingProblem;

/**
 * The driver loop (the parameter server). Each round t: one Spark job over the cached worker RDD whose tasks
 * bring their replica to x_t and return encoded uplinks; the driver averages, compresses the downlink
 * (bidirectional), applies the update to its float[] master model with {@link SparseUpdates}, and broadcasts
 * the encoded update for round t + 1. No dense model is shipped after the initial snapshot except the
 * periodic snapshot for replicas that fall behind.
 */
public final class Trainer<S> {
  private final JavaSparkContext sc;
  private final TrainingConfig config;
  private final TrainingProblem<S> problem;
  private final String runId;
  private final List<RunListener> listeners;

  private ResumeState driverOnly;
  private float[] master;
  private ServerAggregator server;
  private int iteration;
  private long cumUp;
  private long cumDown;
  private long lostResiduals;
  private long resyncs;
  private double epochLossSum;
  private int epochRounds;
  private JavaRDD<S> shards;
  private ObjectiveFactory<S> factory;
  private Checkpoint resume;

  public Trainer(JavaSparkContext sc, TrainingConfig config, TrainingProblem<S> problem, String runId,
      List<RunListener> listeners) {
    this.sc = sc;
    this.config = config;
    this.problem = problem;
    this.runId = runId;
    this.listeners = List.copyOf(listeners);
  }

  /**
   * Continues from {@code checkpoint} instead of starting at x_0: master model, server residual, the workers'
   * residuals and momentum (installed on the executors before the first round), counters and the current
   * epoch's running loss. Same settings and seed, so the rounds that follow are those of the original run.
   */
  public Trainer<S> resumeFrom(Checkpoint checkpoint) {
    this.resume = checkpoint;
    return this;
  }

  /**
   * Continues from the driver's state alone: the loop starts at {@code state.iteration()} with the saved
   * master model and server residual. Worker residuals are not part of it: they restart at zero on the
   * executors and are counted as lost residuals in the first resumed round.
   */
  public Trainer<S> resumeFrom(ResumeState state) {
    this.driverOnly = state;
    return this;
  }

  /** Runs all rounds; on success the run's executor state is dropped, on failure too (best effort). */
  public RunSummary run() {
    factory = problem.objectiveFactory();
    int dimension = factory.dimension();
    if (resume == null && driverOnly != null) {
      resume = Checkpoint.builder().runId(runId).seed(config.seed()).iteration(driverOnly.iteration())
          .master(driverOnly.masterParameters())
          .serverResidual(driverOnly.serverResidual() != null ? driverOnly.serverResidual() : new float[dimension])
          .workerResiduals(new float[problem.workers()][])
          .counters(driverOnly.cumulativeUpBytes(), driverOnly.cumulativeDownBytes(), driverOnly.lostResiduals(), 0)
          .build();
    }
    master = resume != null ? resume.master() : problem.initialParameters();
    if (master.length != dimension) {
      throw new IllegalStateException("initial parameters have " + master.length + " entries, model " + dimension);
    }
    int workers = problem.workers();
    int perEpoch = problem.iterationsPerEpoch();
    long total = (long) config.epochs() * perEpoch;
    if (config.maxIterations() > 0) {
      total = Math.min(total, config.maxIterations());
    }
    Mode mode = config.mode();
    int upK = mode == Mode.DENSE ? dimension : Density.targetK(config.densityUp(), dimension);
    int downK = mode == Mode.BIDIRECTIONAL ? Density.targetK(config.densityDown(), dimension) : dimension;
    UplinkSettings uplink = new UplinkSettings(config.uplink(), upK, mode != Mode.DENSE, (float) config.momentum(),
        config.seed());
    CompressorSpec downSpec = mode == Mode.BIDIRECTIONAL ? config.downlink() : null;
    int t0 = 0;
    if (resume != null) {
      if (resume.workers() != workers || resume.seed() != config.seed()) {
        throw new IllegalArgumentException("--resume: the checkpoint is of " + resume.workers() + " workers, seed "
            + resume.seed() + "; this run has " + workers + " workers, seed " + config.seed());
      }
      t0 = resume.iteration();
      if (t0 > total) {
        throw new IllegalArgumentException("cannot resume at iteration " + t0 + " of a run of " + total);
      }
      cumUp = resume.cumulativeUpBytes();
      cumDown = resume.cumulativeDownBytes();
      lostResiduals = resume.lostResiduals();
      resyncs = resume.replicaResyncs();
      epochLossSum = resume.epochLossSum();
      epochRounds = resume.epochRounds();
    }
    iteration = t0;
    server = new ServerAggregator(dimension, workers, downSpec, downK, config.seed(), factory.statisticsIndices(),
        resume != null ? resume.serverResidual() : null);
    shards = problem.shards();
    DriverView view = new DriverView();
    long started = System.nanoTime();
    double[] iterationMs = new double[(int) Math.min(total, Integer.MAX_VALUE - 8)];
    double lastTrainLoss = Double.NaN;
    Evaluation lastEvaluation = null;
    Double lastGap = null;
    int epochsDone = t0 / perEpoch;
    try (DownlinkWindow window = new DownlinkWindow(sc, config.updateWindow(), config.snapshotEvery())) {
      window.start(t0, master);
      if (resume != null) {
        List<WorkerMemory> memories = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
          memories.add(new WorkerMemory(i, resume.workerResidual(i), resume.workerVelocity(i)));
        }
        WorkerMemories.restore(sc, shards, runId, factory, uplink, memories, t0);
      }
      for (RunListener l : listeners) {
        l.onStart(view);
      }
      for (long tl = t0; tl < total; tl++) {
        int t = Math.toIntExact(tl);
        long start = System.nanoTime();
        int epochIndex = t / perEpoch;
        int batchIndex = t % perEpoch;
        double lr = config.learningRate(epochIndex);
        boolean check = config.consistencyCheckEvery() > 0 && t % config.consistencyCheckEvery() == 0;
        WorkerTask<S> task = new WorkerTask<>(runId, epochIndex, batchIndex, (float) lr, factory, uplink,
            window.view(t), check, config.xi());
        long jobStart = System.nanoTime();
        List<WorkerReport> reports;
        try {
          reports = new ArrayList<>(shards.mapPartitionsWithIndex(task, true).collect());
        } catch (Exception failure) {   // Spark throws SparkException, checked in Java's eyes, undeclared
          String diverged = Divergence.find(failure);
          if (diverged == null) {
            throw failure;
          }
          throw new TrainingDivergedException("training diverged: " + diverged + " (lr " + lr
              + "); no model is written; lower --lr" + (config.checkpointEvery() > 0
              ? ", the last good checkpoint is kept in " + config.output() + "/checkpoints" : ""), failure);
        }
        long jobEnd = System.nanoTime();
        reports.sort(Comparator.comparingInt(WorkerReport::workerId));
        for (int i = 0; i < reports.size(); i++) {
          if (reports.get(i).workerId != i || reports.get(i).iteration != t) {
            throw new IllegalStateException("round " + t + ": unexpected report of worker "
                + reports.get(i).workerId + " for round " + reports.get(i).iteration);
          }
        }
        if (check) {
          verifyReplicas(t, reports);
        }
        Double gap = problem.optimalityGap(master);
        ServerAggregator.Round round = server.aggregate(reports, config.xi() ? upK : null);
        SparseUpdates.apply(master, round.update());
        long aggregated = System.nanoTime();
        window.publish(t, round.encoded());
        window.maybeSnapshot(t + 1, master);
        long published = System.nanoTime();
        iteration = t + 1;

        long upBytes = 0;
        double loss = 0;
        double achieved = 0;
        double deltaUp = 0;
        long gradientNs = 0;
        long compressNs = 0;
        long catchUpNs = 0;
        int lost = 0;
        int resync = 0;
        for (WorkerReport r : reports) {
          upBytes += r.uplinkBytes();
          loss += r.loss;
          achieved += r.achievedK;
          deltaUp = Math.max(deltaUp, ServerAggregator.ratio(r.residualNorm, r.compensatedNorm));
          gradientNs += r.gradientNanos;
          compressNs += r.compressNanos;
          catchUpNs += r.catchUpNanos;
          lost += r.residualLost ? 1 : 0;
          resync += r.resynchronised ? 1 : 0;
        }
        loss /= workers;
        cumUp += upBytes;
        cumDown += round.encoded().length;
        lostResiduals += lost;
        resyncs += resync;
        double totalMs = (published - start) / 1e6;
        iterationMs[t] = totalMs;
        IterationRecord record = new IterationRecord(runId, mode.cliName(), workers, t, epochIndex + 1, loss, lr,
            upBytes, round.encoded().length, round.upNnz(), round.update().nnz(), round.aggregateNnz(), upK,
            achieved / workers, round.downTargetK(), round.downAchievedK(), deltaUp, round.deltaDown(), round.xi(),
            gap, lost, resync, gradientNs / 1e6 / workers, compressNs / 1e6 / workers, catchUpNs / 1e6 / workers,
            (jobEnd - jobStart) / 1e6, taskPathMs(reports, sc.defaultParallelism()), (aggregated - jobEnd) / 1e6, (published - aggregated) / 1e6, totalMs);
        for (RunListener l : listeners) {
          l.onIteration(record, view);
        }
        epochLossSum += loss;
        epochRounds++;
        lastGap = gap;
        boolean epochEnd = (t + 1) % perEpoch == 0;
        boolean last = tl + 1 == total;
        if (epochEnd || last) {
          int epochNumber = epochIndex + 1;
          boolean evaluate = last || epochNumber % config.evalEvery() == 0;
          Evaluation evaluation = evaluate ? problem.evaluate(master) : null;
          lastTrainLoss = epochLossSum / epochRounds;
          if (evaluation != null) {
            lastEvaluation = evaluation;
          }
          EpochRecord epochRecord = new EpochRecord(runId, mode.cliName(), workers, epochNumber, t + 1L,
              lastTrainLoss, evaluation == null ? null : evaluation.loss(),
              evaluation == null ? null : evaluation.accuracy(), cumUp, cumDown, epochEnd ? null : Boolean.TRUE);
          epochsDone = epochNumber;
          epochLossSum = 0;
          epochRounds = 0;
          for (RunListener l : listeners) {
            l.onEpoch(epochRecord, view);
          }
        }
        for (RunListener l : listeners) {
          l.afterRound(view);
        }
      }
      Double finalGap = problem.optimalityGap(master);
      double[] sorted = Arrays.copyOfRange(iterationMs, Math.min(t0, iterationMs.length), (int) Math.min(total, iterationMs.length));  // this process's rounds
      Arrays.sort(sorted);
      double median = sorted.length == 0 ? 0 : sorted[sorted.length / 2];
      RunSummary summary = new RunSummary(runId, problem.name(), mode.cliName(), workers, dimension, total,
          epochsDone, (System.nanoTime() - started) / 1e9, lastTrainLoss,
          lastEvaluation == null ? null : lastEvaluation.loss(),
          lastEvaluation == null ? null : lastEvaluation.accuracy(), finalGap != null ? finalGap : lastGap,
          cumUp, cumDown, total * workers * 4L * dimension, total * 4L * dimension, lostResiduals, resyncs, median);
      for (RunListener l : listeners) {
        l.onFinish(summary, view);
      }
      return summary;
    } finally {
      forgetExecutorState(shards);
    }
  }

  /** Makespan of the tasks' own times when Spark hands them, in partition order, to {@code slots} threads. */
  static double taskPathMs(List<WorkerReport> reports, int slots) {
    long[] free = new long[Math.max(1, slots)];
    for (WorkerReport r : reports) {
      int next = 0;
      for (int i = 1; i < free.length; i++) {
        if (free[i] < free[next]) {
          next = i;
        }
      }
      free[next] += r.catchUpNanos + r.gradientNanos + r.compressNanos;
    }
    return Arrays.stream(free).max().orElse(0) / 1e6;
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

  private void forgetExecutorState(JavaRDD<S> shards) {
    String id = runId;
    try {
      shards.foreachPartition(ignored -> ExecutorRegistry.forget(id));
    } catch (RuntimeException e) {
      // The context may be shutting down after a failure; the state dies with the executors then.
    }
    ExecutorRegistry.forget(id);
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
    public float[] serverResidual() {
      return server.residual();
    }

    @Override
    public long seed() {
      return config.seed();
    }

    @Override
    public long cumulativeUpBytes() {
      return cumUp;
    }

    @Override
    public long cumulativeDownBytes() {
      return cumDown;
    }

    @Override
    public long lostResiduals() {
      return lostResiduals;
    }

    @Override
    public long replicaResyncs() {
      return resyncs;
    }

    @Override
    public double epochLossSum() {
      return epochLossSum;
    }

    @Override
    public int epochRounds() {
      return epochRounds;
    }

    @Override
    public List<WorkerMemory> collectWorkerMemories() {
      return WorkerMemories.collect(shards, runId, factory, problem.workers(), iteration);
    }
  }
}
