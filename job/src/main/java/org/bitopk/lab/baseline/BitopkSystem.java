package org.bitopk.lab.baseline;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.fs.Path;
import org.bitopk.compression.ValueFormat;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunCounters;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.engine.RunSummary;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.run.TrainingRun;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The job itself as one of its {@link BitopkVariant}s, as an ordinary run into {@code <out>/<system>/} (its metrics,
 * config and report included), watched by a listener that evaluates the driver's x_t every {@code evalEvery} rounds
 * with the clock stopped and ends the run once the training clock passes the budget. Bytes are the run's own
 * counters, {@code up_bytes + down_bytes_delivered}: the sums of its {@code metrics/iterations.jsonl} columns.
 * Where a round's clock went ({@link RoundSplit}) comes from the same lines: compute is {@code time_task_path_ms}
 * (at most {@code time_job_ms}), communication the rest of {@code time_job_ms} (which carries moved workers' states
 * too), rest the remainder of the round's training clock.
 */
final class BitopkSystem implements ComparedSystem {
  /** Between a system's name and a density of its own: {@code bitopk-bidirectional-rho-0.001}. */
  static final String DENSITY_INFIX = "-rho-";
  /** Last, the format of the messages' values: {@code bitopk-bidirectional-rho-0.001-values-fp16}. */
  static final String VALUES_INFIX = "-values-";
  private final BitopkVariant variant;
  /** ρ of its own; empty: {@code --density}'s. */
  private final Optional<BigDecimal> density;
  private final ValueFormat values;

  /**
   * @param density this system's ρ up and down, empty for {@code --density}'s; a system of its own, so that one
   *     comparison can show a variant at two densities (the fastest and the one moving the fewest bytes differ)
   * @param values the format of the values sent up and, when bidirectional, down (error feedback keeps what
   *     rounding loses); FP32 keeps the variant's own, and names no system of its own
   */
  BitopkSystem(BitopkVariant variant, Optional<BigDecimal> density, ValueFormat values) {
    if (density.isPresent() && !variant.takesDensity()) {
      throw new IllegalArgumentException("a density has no effect on " + variant.systemName());
    }
    if (values != ValueFormat.FP32 && variant.mode() == Mode.DENSE) {
      throw new IllegalArgumentException("a value format needs error feedback, which " + variant.systemName()
          + " does not have");
    }
    if (density.isPresent() && (density.get().signum() <= 0 || density.get().compareTo(BigDecimal.ONE) > 0)) {
      throw new IllegalArgumentException("density expected in (0, 1], got " + density.get().toPlainString());
    }
    this.variant = variant;
    this.density = density.map(BigDecimal::stripTrailingZeros);
    this.values = values;
  }

  @Override
  public String name() {
    return variant.systemName() + density.map(d -> DENSITY_INFIX + d.toPlainString()).orElse("")
        + (values == ValueFormat.FP32 ? "" : VALUES_INFIX + values.text());
  }

  @Override
  public SystemResult run(Context context) throws Exception {
    ComparisonSettings s = context.settings();
    double rho = variant.density(density.map(BigDecimal::doubleValue).orElse(s.density()));
    Path runDir = new Path(context.directory(), context.label());
    TrainingConfigBuilder settings = TrainingConfig.builder().dataset(s.dataset());
    if (s.dataPath() != null) {
      settings.data(s.dataPath());
    }
    TrainingConfig config = variant.configure(settings
        .model(Dl4jSetup.MODEL).workers(s.workers()).batchSize(s.batchSize()).learningRate(s.learningRate())
        .epochs(s.epochs()).seed(s.seed()), rho, values)
        // the job's own evaluation only after the last epoch, once this comparison's clock is read: every more
        // epochs than the run has, so that a short run gets no evaluations inside epochs either (EvaluationCadence)
        .evalEvery(s.epochs() + 1).quiet(true).output(runDir.toString()).overwrite(true).build();
    Probe probe = new Probe(context.data().train(), context.data().test(), s, context.fault());
    TrainingRun.Result result = TrainingRun.execute(context.sc(), config, false, List.of(probe));
    RunSummary summary = result.summary();
    String details = String.format(Locale.ROOT, "%s; %d workers; batch %d; SGD lr %s; %d rounds; run directory %s; "
        + "bytes = up_bytes + down_bytes_delivered%s", variant.describe(rho, values), s.workers(), s.batchSize(),
        s.learningRate(), summary.iterations(), runDir.getName(), summary.lostResiduals() == 0 ? ""
            : "; lost residuals " + summary.lostResiduals() + " (workers whose executor was lost started afresh)");
    return SystemResult.ok(name(), details, probe.trace.build());
  }

  /**
   * Evaluates x_t every {@code evalEvery} rounds (clock stopped), asks the driver to stop past the budget and tells
   * the run's fault every round completed.
   */
  static final class Probe implements RunListener {
    private final LabeledImages test;
    private final ComparisonSettings settings;
    private final RunFault fault;
    private final MultiLayerNetwork network;
    private final TrainingClock clock = new TrainingClock();
    final Trace.Builder trace = new Trace.Builder();
    private long lastRecorded = -1;
    private long lastRound;
    private double lastRoundSeconds;
    private boolean stop;
    /** Of the rounds since the last evaluation: their compute and communication (ms), their clock at it (s). */
    private double computeMs;
    private double communicationMs;
    private double recordedSeconds;

    Probe(LabeledImages train, LabeledImages test, ComparisonSettings settings, RunFault fault) {
      this.test = test;
      this.settings = settings;
      this.fault = fault;
      this.network = Dl4jSetup.network(train, settings.seed(), settings.learningRate());
    }

    @Override
    public void onStart(DriverState state) {
      record(state.iteration(), 0, state.modelParameters(), 0);
      clock.start();
    }

    @Override
    public void onIteration(IterationRecord record, DriverState state) {
      lastRound = state.iteration();
      lastRoundSeconds = clock.seconds();
      fault.reached(lastRound);
      // the tasks' critical path is an estimate (list-scheduled on the slots): never more than the job it is part of
      double compute = Math.min(record.timeTaskPathMs(), record.timeJobMs());
      computeMs += compute;
      communicationMs += record.timeJobMs() - compute;
      if (lastRound % settings.evalEvery() == 0 || settings.pastBudget(lastRoundSeconds, lastRound)) {
        clock.pause();
        double accuracy = record(lastRound, lastRoundSeconds, state.modelParameters(), bytes(state.counters()));
        clock.resume();
        stop = settings.done(lastRoundSeconds, lastRound, accuracy);
      }
    }

    @Override
    public boolean stopRequested(DriverState state) {
      return stop;
    }

    @Override
    public void onFinish(RunSummary summary, DriverState state) {
      if (lastRecorded != state.iteration()) {
        // the last round, evaluated now; its time is the clock when the round ended (before the job's own evaluation)
        record(state.iteration(), lastRoundSeconds, state.modelParameters(), bytes(state.counters()));
      }
    }

    private static long bytes(RunCounters counters) {
      return counters.upBytes() + counters.downDeliveredBytes();
    }

    private double record(long round, double seconds, float[] parameters, long bytes) {
      network.setParams(Nd4j.createFromArray(parameters).reshape(1, parameters.length));
      Evaluation e = Dl4jSetup.evaluate(network, test);
      trace.add(new TracePoint(round, seconds, bytes, e.accuracy(), e.loss()), RoundSplit.ofWall(
          lastRecorded < 0 ? 0 : round - lastRecorded, 1000 * (seconds - recordedSeconds), computeMs,
          communicationMs));
      computeMs = 0;
      communicationMs = 0;
      recordedSeconds = seconds;
      lastRecorded = round;
      return e.accuracy();
    }
  }
}
