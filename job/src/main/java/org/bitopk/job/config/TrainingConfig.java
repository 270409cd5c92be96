package org.bitopk.job.config;

import static org.bitopk.job.config.TrainFlags.*;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.ModelChoice;
import org.bitopk.job.problem.network.ModelSpec;
import org.bitopk.job.problem.quadratic.CounterexampleSetting;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;
import org.jspecify.annotations.Nullable;

/**
 * Every setting of a training run, validated and with defaults resolved. {@link FlagValues#recorded} writes it
 * under the command-line flag names, so a run's {@code config.json} can be passed back with {@code --config}.
 */
public final class TrainingConfig {
  public static final String COUNTEREXAMPLE = "counterexample";

  private final @Nullable String master;
  private final String dataset;
  private final @Nullable String data;
  private final ModelSpec model;
  private final Mode mode;
  private final int workers;
  private final int tasks;
  private final CompressorSpec uplink;
  private final CompressorSpec downlink;
  private final double densityUp;
  private final double densityDown;
  private final @Nullable Integer kUp;
  private final @Nullable Integer kDown;
  private final KRounding kRounding;
  private final ValueFormat valuesUp;
  private final ValueFormat valuesDown;
  private final double learningRate;
  private final double lrDecay;
  private final double momentum;
  private final int batchSize;
  private final int epochs;
  private final long maxIterations;
  private final boolean nonIid;
  private final long seed;
  private final @Nullable String output;
  private final boolean overwrite;
  private final int evalEvery;
  private final int consistencyCheckEvery;
  private final int snapshotEvery;
  private final int updateWindow;
  private final boolean xi;
  /** 1-based rounds whose compensated vectors c_i are written, ascending; empty for none. */
  private final java.util.List<Integer> captureVectors;
  private final org.bitopk.job.engine.UplinkFeedback uplinkFeedback;
  private final DownlinkScheme downlinkScheme;
  private final @Nullable Double upMemoryRate;
  private final @Nullable Double downMemoryRate;
  private final boolean quiet;
  private final int checkpointEvery;
  private final boolean resume;
  private final @Nullable TableInput table;
  private final @Nullable String x0;
  private final @Nullable CounterexampleSetting counterexample;
  private final @Nullable SyntheticGradientSetting syntheticGradients;

  TrainingConfig(TrainingConfigBuilder b) {
    this.master = b.master;
    this.dataset = b.dataset;
    this.data = b.data;
    this.model = b.model != null ? b.model : ModelChoice.defaultFor(b.dataset);
    this.mode = b.mode;
    this.counterexample = CounterexampleSetting.names(b.dataset) ? CounterexampleSetting.parse(b.dataset) : null;
    this.syntheticGradients = SyntheticGradientSetting.names(b.dataset) ? SyntheticGradientSetting.parse(b.dataset)
        : null;
    this.workers = b.workers != null ? b.workers
        : counterexample != null ? counterexample.workers() : TrainSettings.WORKERS.defaultValue().orElseThrow();
    this.tasks = b.tasks;
    if (tasks > workers) {
      throw new IllegalArgumentException(flag(TASKS) + ": expected at most --workers (" + workers
          + ") tasks, got " + tasks);
    }
    this.uplink = b.mode == Mode.DENSE ? CompressorSpec.parse("none") : b.uplink;
    this.downlink = b.mode == Mode.BIDIRECTIONAL ? b.downlink : CompressorSpec.parse("none");
    this.densityUp = b.mode == Mode.DENSE ? 1.0 : b.densityUp;
    this.densityDown = b.mode == Mode.BIDIRECTIONAL ? b.densityDown : 1.0;
    this.kUp = b.mode == Mode.DENSE ? null : b.kUp;
    this.kDown = b.mode == Mode.BIDIRECTIONAL ? b.kDown : null;
    this.x0 = b.x0;
    this.kRounding = b.kRounding;
    this.valuesUp = b.valuesUp;
    this.valuesDown = b.valuesDown;
    this.learningRate = b.learningRate != null ? b.learningRate : defaultLearningRate(b.dataset);
    this.lrDecay = b.lrDecay;
    this.momentum = b.momentum;
    this.batchSize = b.batchSize;
    this.epochs = b.epochs;
    this.maxIterations = b.maxIterations;
    this.nonIid = b.nonIid;
    this.seed = b.seed;
    this.output = b.output;
    this.overwrite = b.overwrite;
    this.evalEvery = b.evalEvery;
    this.consistencyCheckEvery = b.consistencyCheckEvery;
    this.snapshotEvery = b.snapshotEvery;
    this.updateWindow = b.updateWindow;
    this.xi = b.xi;
    this.captureVectors = b.captureVectors;
    this.uplinkFeedback = b.uplinkFeedback;
    this.downlinkScheme = b.downlinkScheme != null ? b.downlinkScheme : DownlinkScheme.defaultFor(b.mode);
    this.upMemoryRate = b.upMemoryRate;
    this.downMemoryRate = b.downMemoryRate;
    refuseSchemesThatDoNotApply();
    this.quiet = b.quiet;
    this.checkpointEvery = b.checkpointEvery;
    this.resume = b.resume;
    this.table = b.table;
    if (table != null && data != null) {
      throw new IllegalArgumentException(flag(DATA) + ": table input takes its path from --data-format/--table, not as "
          + "a data set directory");
    }
    if (resume && output == null) {
      throw new IllegalArgumentException(flag(RESUME) + ": needs the run directory to continue");
    }
    if (counterexample != null && workers != counterexample.workers()) {
      throw new IllegalArgumentException(flag(WORKERS) + " " + workers + ": the counterexample has one worker per "
          + "centre, and --dataset " + dataset + " has " + counterexample.workers() + " centres; leave --workers "
          + "out or give " + counterexample.workers());
    }
    if (x0 != null && counterexample == null) {
      throw new IllegalArgumentException(flag(X0) + " " + x0 + ": only for --dataset counterexample[:options]");
    }
    if (counterexample != null || syntheticGradients != null) {
      int d = counterexample != null ? counterexample.dimension() : syntheticGradients.dimension();
      if (kUp != null && kUp > d) {
        throw new IllegalArgumentException(flag(K_UP) + " " + kUp + ": exceeds the dimension d = " + d
            + " of --dataset " + dataset);
      }
      if (kDown != null && kDown > d) {
        throw new IllegalArgumentException(flag(K_DOWN) + " " + kDown + ": exceeds the dimension d = " + d
            + " of --dataset " + dataset);
      }
    }
    if (snapshotEvery > updateWindow) {
      throw new IllegalArgumentException(flag(SNAPSHOT_EVERY) + " (" + snapshotEvery + ") must not exceed "
          + "--update-window (" + updateWindow + "): a replica restored from the snapshot catches up through the "
          + "window");
    }
  }

  public static TrainingConfigBuilder builder() {
    return new TrainingConfigBuilder();
  }

  /** Combinations a scheme does not define: one line naming the flag. */
  private void refuseSchemesThatDoNotApply() {
    if (mode == Mode.DENSE && uplinkFeedback != org.bitopk.job.engine.UplinkFeedback.EF14) {
      throw new IllegalArgumentException(flag(UPLINK_FEEDBACK) + ": " + uplinkFeedback.cliName() + " does not apply to "
          + flag(MODE) + " dense, which sends every gradient entry uncompressed");
    }
    boolean estimate = uplinkFeedback.keepsGradientEstimate();
    String name = uplinkFeedback == org.bitopk.job.engine.UplinkFeedback.EF21 ? "EF21" : "Artemis";
    if (estimate && momentum != 0) {
      throw new IllegalArgumentException(flag(MOMENTUM) + ": " + name + " (--uplink-feedback "
          + uplinkFeedback.cliName() + ") keeps a gradient estimate, not a momentum; expected 0, got " + momentum);
    }
    if (estimate && xi) {
      throw new IllegalArgumentException(flag(XI) + ": measures EF14's TopK aggregation error; not defined for "
          + flag(UPLINK_FEEDBACK) + " " + uplinkFeedback.cliName());
    }
    if (upMemoryRate != null && uplinkFeedback != org.bitopk.job.engine.UplinkFeedback.ARTEMIS) {
      throw new IllegalArgumentException(flag(UP_MEMORY_RATE) + ": the rate of Artemis' uplink memory; applies to "
          + flag(UPLINK_FEEDBACK) + " artemis only, got --uplink-feedback " + uplinkFeedback.cliName());
    }
    if (uplinkFeedback == org.bitopk.job.engine.UplinkFeedback.ARTEMIS && upMemoryRate == null && !uplink.unbiased()) {
      throw new IllegalArgumentException(missingRate(flag(UP_MEMORY_RATE), flag(UPLINK_FEEDBACK) + " artemis",
          flag(UPLINK), uplink));
    }
    if (downlinkScheme == DownlinkScheme.MCM && downMemoryRate == null && !downlink.unbiased()) {
      throw new IllegalArgumentException(missingRate(flag(DOWN_MEMORY_RATE), flag(DOWNLINK_SCHEME) + " mcm",
          flag(DOWNLINK), downlink));
    }
    if (downMemoryRate != null && downlinkScheme != DownlinkScheme.MCM) {
      throw new IllegalArgumentException(flag(DOWN_MEMORY_RATE) + ": the rate of MCM's downlink memory; applies to "
          + flag(DOWNLINK_SCHEME) + " mcm only, got --downlink-scheme " + downlinkScheme.cliName());
    }
    if (!captureVectors.isEmpty() && uplinkFeedback != org.bitopk.job.engine.UplinkFeedback.EF14) {
      throw new IllegalArgumentException(flag(CAPTURE_VECTORS) + ": captures the compensated vectors of classic error "
          + "feedback (--uplink-feedback ef14); got --uplink-feedback " + uplinkFeedback.cliName());
    }
    if (valuesUp != ValueFormat.FP32 && (mode == Mode.DENSE || estimate)) {
      throw new IllegalArgumentException(flag(VALUES_UP) + " " + valuesUp.text() + ": rounds what error feedback "
          + "sends (the residual keeps the rest); applies to sparse uplinks with --uplink-feedback ef14 or none, "
          + "got " + (mode == Mode.DENSE ? "--mode dense" : "--uplink-feedback " + uplinkFeedback.cliName()));
    }
    if (valuesDown != ValueFormat.FP32 && downlinkScheme != DownlinkScheme.EF) {
      throw new IllegalArgumentException(flag(VALUES_DOWN) + " " + valuesDown.text() + ": rounds what the "
          + "server's error feedback sends; applies to --downlink-scheme ef (bidirectional) only, got "
          + "--downlink-scheme " + downlinkScheme.cliName());
    }
    if ((downlinkScheme == DownlinkScheme.AVERAGE) == (mode == Mode.BIDIRECTIONAL)) {
      throw new IllegalArgumentException(flag(DOWNLINK_SCHEME) + ": " + downlinkScheme.cliName() + " does not apply to "
          + flag(MODE) + " " + mode.cliName() + " (bidirectional: ef, ef21-p or mcm; unidirectional and dense: "
          + "average)");
    }
  }

  public boolean isCounterexample() {
    return counterexample != null;
  }

  /** Whether the problem is generated without a network: the counterexample or the synthetic gradients. */
  public boolean hasNoNetwork() {
    return counterexample != null || syntheticGradients != null;
  }

  /** The synthetic-gradient benchmark problem's settings; empty for other data sets. */
  public Optional<SyntheticGradientSetting> syntheticGradients() {
    return Optional.ofNullable(syntheticGradients);
  }

  /** The counterexample's d, centres and x₀ generator; empty for other data sets. */
  public Optional<CounterexampleSetting> counterexample() {
    return Optional.ofNullable(counterexample);
  }

  /** The file x₀ of the counterexample is read from (any Hadoop FileSystem URI); empty: generated. */
  public Optional<String> x0() {
    return Optional.ofNullable(x0);
  }

  /** The uplink k given directly; empty: from {@link #densityUp()} by {@link #kRounding()}. */
  public OptionalInt kUp() {
    return kUp == null ? OptionalInt.empty() : OptionalInt.of(kUp);
  }

  /** The downlink k given directly; empty: from {@link #densityDown()} by {@link #kRounding()}. */
  public OptionalInt kDown() {
    return kDown == null ? OptionalInt.empty() : OptionalInt.of(kDown);
  }

  /** Spark master URL; empty: the one spark-submit set, else local[*]. */
  public Optional<String> master() { return Optional.ofNullable(master); }
  /** Rounds between checkpoints; 0 = no checkpoints. */
  public int checkpointEvery() { return checkpointEvery; }
  /** True when continuing the run in {@link #output()} from its newest checkpoint. */
  public boolean resume() { return resume; }
  public String dataset() { return dataset; }
  /** Table input (a path read with a Spark data source, a catalog table or a DataFrame); empty for files. */
  public Optional<TableInput> table() { return Optional.ofNullable(table); }
  /** Data directory URI; empty for the dataset's default location. */
  public Optional<String> data() { return Optional.ofNullable(data); }
  /** A built-in {@link ModelArchitecture} or a network of one's own. */
  public ModelSpec model() { return model; }
  public Mode mode() { return mode; }
  public int workers() { return workers; }
  /** Spark tasks per round the workers are packed into; 0 = min(workers, the cluster's task slots). */
  public int tasks() { return tasks; }
  /** Effective uplink compressor ("none" in dense mode). */
  public CompressorSpec uplink() { return uplink; }
  /** Effective downlink compressor ("none" unless bidirectional). */
  public CompressorSpec downlink() { return downlink; }
  public double densityUp() { return densityUp; }
  public double densityDown() { return densityDown; }
  /** How a density becomes k: floor (default) or Zou's reference scripts' rounding. */
  public KRounding kRounding() { return kRounding; }
  /** The format of the values workers send (--values-up). */
  public ValueFormat valuesUp() { return valuesUp; }
  /** The format of the values the server sends (--values-down). */
  public ValueFormat valuesDown() { return valuesDown; }
  public double learningRate() { return learningRate; }
  public double lrDecay() { return lrDecay; }
  public double momentum() { return momentum; }
  public int batchSize() { return batchSize; }
  public int epochs() { return epochs; }
  /** Upper bound on iterations; 0 = no bound beyond the epochs. */
  public long maxIterations() { return maxIterations; }
  public boolean nonIid() { return nonIid; }
  public long seed() { return seed; }
  /** Output directory URI; empty for runs/&lt;timestamp&gt;. */
  public Optional<String> output() { return Optional.ofNullable(output); }
  public boolean overwrite() { return overwrite; }
  public int evalEvery() { return evalEvery; }
  public int consistencyCheckEvery() { return consistencyCheckEvery; }
  public int snapshotEvery() { return snapshotEvery; }
  public int updateWindow() { return updateWindow; }
  public boolean xi() { return xi; }
  /** The 1-based rounds whose compensated vectors are captured, ascending (empty: none). */
  public java.util.List<Integer> captureVectors() { return captureVectors; }
  /** Workers' memory: ef14 (default), ef21 or none. */
  public org.bitopk.job.engine.UplinkFeedback uplinkFeedback() { return uplinkFeedback; }
  /** What the server broadcasts: ef (bidirectional default), ef21-p, or average (the other modes). */
  public DownlinkScheme downlinkScheme() { return downlinkScheme; }
  /** α_up of --uplink-feedback artemis as given; empty: resolved from the compressor's ω in the run plan. */
  public OptionalDouble upMemoryRate() {
    return upMemoryRate == null ? OptionalDouble.empty() : OptionalDouble.of(upMemoryRate);
  }
  /** α_dwn of --downlink-scheme mcm as given; empty: resolved from the compressor's ω in the run plan. */
  public OptionalDouble downMemoryRate() {
    return downMemoryRate == null ? OptionalDouble.empty() : OptionalDouble.of(downMemoryRate);
  }
  public boolean quiet() { return quiet; }

  /** "1,100,1000": the flag's text for a list of rounds. */
  static String captureVectorsText(java.util.List<Integer> rounds) {
    StringBuilder text = new StringBuilder();
    for (int r : rounds) {
      text.append(text.length() == 0 ? "" : ",").append(r);
    }
    return text.toString();
  }

  /** Default learning rate: 0.1 (tuned for the MLPs at batch 32), 0.01 for the counterexample (the paper's). */
  public static double defaultLearningRate(String dataset) {
    return CounterexampleSetting.names(dataset) ? 0.01 : TrainSettings.LR.defaultValue().orElseThrow();
  }

  public TrainingConfigBuilder toBuilder() {
    TrainingConfigBuilder b = new TrainingConfigBuilder();
    b.master = master; b.dataset = dataset; b.data = data; b.model = model; b.mode = mode; b.workers = workers; b.tasks = tasks;
    b.uplink = uplink; b.downlink = downlink; b.densityUp = densityUp; b.densityDown = densityDown;
    b.kRounding = kRounding; b.valuesUp = valuesUp; b.valuesDown = valuesDown; b.kUp = kUp; b.kDown = kDown; b.x0 = x0;
    b.learningRate = learningRate; b.lrDecay = lrDecay; b.momentum = momentum; b.batchSize = batchSize;
    b.epochs = epochs; b.maxIterations = maxIterations; b.nonIid = nonIid; b.seed = seed; b.output = output;
    b.overwrite = overwrite; b.evalEvery = evalEvery; b.consistencyCheckEvery = consistencyCheckEvery;
    b.snapshotEvery = snapshotEvery; b.updateWindow = updateWindow; b.xi = xi; b.quiet = quiet;
    b.captureVectors = captureVectors;
    b.uplinkFeedback = uplinkFeedback; b.downlinkScheme = downlinkScheme;
    b.upMemoryRate = upMemoryRate; b.downMemoryRate = downMemoryRate;
    b.checkpointEvery = checkpointEvery; b.resume = resume; b.table = table;
    return b;
  }

  /**
   * The message for a memory rate α left out where its default 1/(2(ω + 1)) is not defined: shared by the
   * settings' check and the run plan that computes ω.
   */
  public static String missingRate(String flag, String scheme, String compressorFlag, CompressorSpec compressor) {
    return flag + ": required with " + scheme + " and " + compressorFlag + " " + compressor + ": the default "
        + "1/(2(omega + 1)) needs an unbiased compressor of known variance omega (randomk:scaled, natural); 1 keeps "
        + "the whole message (EF21 / EF21-P)";
  }
}
