package org.bitopk.job.config;

import static org.bitopk.job.config.TrainFlags.*;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.TreeSet;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.engine.UplinkFeedback;
import org.bitopk.job.problem.network.DatasetChoice;
import org.bitopk.job.problem.network.ModelSpec;
import org.bitopk.job.problem.quadratic.CounterexampleSetting;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;
import org.jspecify.annotations.Nullable;

/** The validating builder of a {@link TrainingConfig}; every setter names its flag in the error message. */
public final class TrainingConfigBuilder {
  @Nullable String master;
  String dataset = TrainSettings.DATASET.defaultValue().orElseThrow();
  @Nullable String data;
  @Nullable ModelSpec model;
  Mode mode = TrainSettings.MODE.defaultValue().orElseThrow();
  @Nullable Integer workers;
  int tasks = TrainSettings.TASKS.defaultValue().orElseThrow();
  CompressorSpec uplink = TrainSettings.UPLINK.defaultValue().orElseThrow();
  CompressorSpec downlink = TrainSettings.DOWNLINK.defaultValue().orElseThrow();
  double densityUp = TrainSettings.DENSITY_UP.defaultValue().orElseThrow();
  double densityDown = TrainSettings.DENSITY_DOWN.defaultValue().orElseThrow();
  KRounding kRounding = TrainSettings.K_ROUNDING.defaultValue().orElseThrow();
  ValueFormat valuesUp = TrainSettings.VALUES_UP.defaultValue().orElseThrow();
  ValueFormat valuesDown = TrainSettings.VALUES_DOWN.defaultValue().orElseThrow();
  @Nullable Integer kUp;
  @Nullable Integer kDown;
  @Nullable String x0;
  @Nullable Double learningRate;
  double lrDecay = TrainSettings.LR_DECAY.defaultValue().orElseThrow();
  double momentum = TrainSettings.MOMENTUM.defaultValue().orElseThrow();
  int batchSize = TrainSettings.BATCH_SIZE.defaultValue().orElseThrow();
  int epochs = TrainSettings.EPOCHS.defaultValue().orElseThrow();
  long maxIterations = TrainSettings.MAX_ITERATIONS.defaultValue().orElseThrow();
  boolean nonIid = TrainSettings.SPLIT.defaultValue().orElseThrow().equals("non-iid");
  long seed = TrainSettings.SEED.defaultValue().orElseThrow();
  @Nullable String output;
  boolean overwrite = TrainSettings.OVERWRITE.defaultValue().orElseThrow();
  int evalEvery = TrainSettings.EVAL_EVERY.defaultValue().orElseThrow();
  int consistencyCheckEvery = TrainSettings.CONSISTENCY_CHECK_EVERY.defaultValue().orElseThrow();
  int snapshotEvery = TrainSettings.SNAPSHOT_EVERY.defaultValue().orElseThrow();
  int updateWindow = TrainSettings.UPDATE_WINDOW.defaultValue().orElseThrow();
  boolean xi = TrainSettings.XI.defaultValue().orElseThrow();
  List<Integer> captureVectors = List.of();
  boolean quiet = TrainSettings.QUIET.defaultValue().orElseThrow();
  UplinkFeedback uplinkFeedback = UplinkFeedback.parse(TrainSettings.UPLINK_FEEDBACK.defaultValue().orElseThrow());
  @Nullable DownlinkScheme downlinkScheme;
  @Nullable Double upMemoryRate;
  @Nullable Double downMemoryRate;
  int checkpointEvery = TrainSettings.CHECKPOINT_EVERY.defaultValue().orElseThrow();
  boolean resume;
  @Nullable TableInput table;

  TrainingConfigBuilder() {}

  /** The Spark master URL; its syntax is checked here ({@link MasterUrl}), its reachability before Spark starts. */
  public TrainingConfigBuilder master(String v) {
    String m = TrainSettings.MASTER.checked(v);
    MasterUrl.parse(m);
    master = m;
    return this;
  }

  public TrainingConfigBuilder dataset(String v) {
    String d = TrainSettings.DATASET.checked(v);
    DatasetChoice.parse(d); // one line naming the text and the choices
    try {
      if (CounterexampleSetting.names(d)) {
        CounterexampleSetting.parse(d);
      } else if (SyntheticGradientSetting.names(d)) {
        SyntheticGradientSetting.parse(d);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(flag(DATASET) + ": " + e.getMessage(), e);
    }
    dataset = d;
    return this;
  }

  /** The data directory URI, instead of the dataset's default location (an empty text is refused). */
  public TrainingConfigBuilder data(String v) { data = TrainSettings.DATA.checked(v); return this; }

  /** The network, instead of the data set's default architecture. */
  public TrainingConfigBuilder model(ModelSpec v) { model = Objects.requireNonNull(v, flag(MODEL)); return this; }
  public TrainingConfigBuilder mode(Mode v) { mode = Objects.requireNonNull(v, flag(MODE)); return this; }
  public TrainingConfigBuilder workers(int v) { workers = TrainSettings.WORKERS.checked(v); return this; }

  /** Spark tasks per round (1..workers); 0 = as many as the cluster has task slots, at most workers. */
  public TrainingConfigBuilder tasks(int v) { tasks = TrainSettings.TASKS.checked(v); return this; }
  public TrainingConfigBuilder uplink(CompressorSpec v) {
    uplink = Objects.requireNonNull(v, flag(UPLINK));
    return this;
  }
  public TrainingConfigBuilder downlink(CompressorSpec v) {
    downlink = Objects.requireNonNull(v, flag(DOWNLINK));
    return this;
  }
  public TrainingConfigBuilder densityUp(double v) { densityUp = TrainSettings.DENSITY_UP.checked(v); return this; }
  public TrainingConfigBuilder densityDown(double v) {
    densityDown = TrainSettings.DENSITY_DOWN.checked(v);
    return this;
  }
  /** The uplink k directly, instead of a density. */
  public TrainingConfigBuilder kUp(int v) {
    return kUp(OptionalInt.of(v));
  }

  /** The uplink k directly when present; empty: from the density (clears a k set before). */
  public TrainingConfigBuilder kUp(OptionalInt v) {
    kUp = v.isPresent() ? TrainSettings.K_UP.checked(v.getAsInt()) : null;
    return this;
  }

  /** The downlink k directly, instead of a density. */
  public TrainingConfigBuilder kDown(int v) {
    return kDown(OptionalInt.of(v));
  }

  /** The downlink k directly when present; empty: from the density (clears a k set before). */
  public TrainingConfigBuilder kDown(OptionalInt v) {
    kDown = v.isPresent() ? TrainSettings.K_DOWN.checked(v.getAsInt()) : null;
    return this;
  }

  /** The counterexample's x₀ file, instead of one generated from the seed (an empty text is refused). */
  public TrainingConfigBuilder x0(String v) { x0 = TrainSettings.X0.checked(v); return this; }
  public TrainingConfigBuilder kRounding(KRounding v) {
    kRounding = Objects.requireNonNull(v, flag(K_ROUNDING));
    return this;
  }

  /** The format of the values workers send. */
  public TrainingConfigBuilder valuesUp(ValueFormat v) {
    valuesUp = Objects.requireNonNull(v, flag(VALUES_UP));
    return this;
  }

  /** The format of the values the server sends. */
  public TrainingConfigBuilder valuesDown(ValueFormat v) {
    valuesDown = Objects.requireNonNull(v, flag(VALUES_DOWN));
    return this;
  }

  public TrainingConfigBuilder learningRate(double v) { learningRate = TrainSettings.LR.checked(v); return this; }
  public TrainingConfigBuilder lrDecay(double v) { lrDecay = TrainSettings.LR_DECAY.checked(v); return this; }
  public TrainingConfigBuilder momentum(double v) { momentum = TrainSettings.MOMENTUM.checked(v); return this; }
  public TrainingConfigBuilder batchSize(int v) { batchSize = TrainSettings.BATCH_SIZE.checked(v); return this; }
  public TrainingConfigBuilder epochs(int v) { epochs = TrainSettings.EPOCHS.checked(v); return this; }

  public TrainingConfigBuilder maxIterations(long v) {
    maxIterations = TrainSettings.MAX_ITERATIONS.checked(v);
    return this;
  }

  public TrainingConfigBuilder nonIid(boolean v) { nonIid = v; return this; }
  public TrainingConfigBuilder seed(long v) { seed = v; return this; }
  /** The output directory URI, instead of runs/&lt;timestamp&gt; (an empty text is refused). */
  public TrainingConfigBuilder output(String v) {
    output = TrainSettings.OUTPUT.checked(v);
    return this;
  }

  public TrainingConfigBuilder overwrite(boolean v) { overwrite = v; return this; }
  public TrainingConfigBuilder evalEvery(int v) { evalEvery = TrainSettings.EVAL_EVERY.checked(v); return this; }

  public TrainingConfigBuilder consistencyCheckEvery(int v) {
    consistencyCheckEvery = TrainSettings.CONSISTENCY_CHECK_EVERY.checked(v);
    return this;
  }

  public TrainingConfigBuilder snapshotEvery(int v) {
    snapshotEvery = TrainSettings.SNAPSHOT_EVERY.checked(v);
    return this;
  }

  public TrainingConfigBuilder updateWindow(int v) {
    updateWindow = TrainSettings.UPDATE_WINDOW.checked(v);
    return this;
  }
  public TrainingConfigBuilder xi(boolean v) { xi = v; return this; }

  /**
   * The rounds whose compensated vectors are written, as the flag's text: comma-separated 1-based round
   * numbers, e.g. {@code 1,100,1000} (none unless set). Refused: an empty text, an entry that is not a positive
   * integer, a round listed twice. Rounds beyond the run's end are refused once the run's length is known
   * ({@code PreparedRun}).
   */
  public TrainingConfigBuilder captureVectors(String v) {
    String text = TrainSettings.CAPTURE_VECTORS.checked(v);
    TreeSet<Integer> rounds = new TreeSet<>();
    for (String part : text.split(",", -1)) {
      String entry = part.trim();
      int round;
      try {
        round = Integer.parseInt(entry);
      } catch (NumberFormatException e) {
        round = 0;
      }
      if (round < 1) {
        throw new IllegalArgumentException(flag(CAPTURE_VECTORS) + ": '" + entry + "' is not a round number; expected "
            + "comma-separated 1-based rounds, e.g. 1,100,1000");
      }
      if (!rounds.add(round)) {
        throw new IllegalArgumentException(flag(CAPTURE_VECTORS) + ": round " + round + " is listed twice in '" + text
            + "'");
      }
    }
    captureVectors = List.copyOf(rounds);
    return this;
  }

  public TrainingConfigBuilder uplinkFeedback(UplinkFeedback v) {
    uplinkFeedback = Objects.requireNonNull(v, flag(UPLINK_FEEDBACK));
    return this;
  }

  /** What the server broadcasts, instead of the mode's default (ef when bidirectional, else average). */
  public TrainingConfigBuilder downlinkScheme(DownlinkScheme v) {
    downlinkScheme = Objects.requireNonNull(v, flag(DOWNLINK_SCHEME));
    return this;
  }

  /** α_up in (0, 1], instead of the default 1/(2(ω + 1)) of an unbiased compressor. */
  public TrainingConfigBuilder upMemoryRate(double v) {
    return upMemoryRate(OptionalDouble.of(v));
  }

  /** α_up in (0, 1] when present; empty: the default 1/(2(ω + 1)) (clears a rate set before). */
  public TrainingConfigBuilder upMemoryRate(OptionalDouble v) {
    upMemoryRate = v.isPresent() ? TrainSettings.UP_MEMORY_RATE.checked(v.getAsDouble()) : null;
    return this;
  }

  /** α_dwn in (0, 1], instead of the default 1/(2(ω + 1)) of an unbiased compressor. */
  public TrainingConfigBuilder downMemoryRate(double v) {
    return downMemoryRate(OptionalDouble.of(v));
  }

  /** α_dwn in (0, 1] when present; empty: the default 1/(2(ω + 1)) (clears a rate set before). */
  public TrainingConfigBuilder downMemoryRate(OptionalDouble v) {
    downMemoryRate = v.isPresent() ? TrainSettings.DOWN_MEMORY_RATE.checked(v.getAsDouble()) : null;
    return this;
  }

  public TrainingConfigBuilder quiet(boolean v) { quiet = v; return this; }

  /** Every N rounds, write a checkpoint to output/checkpoints (0 = never). */
  public TrainingConfigBuilder checkpointEvery(int v) {
    checkpointEvery = TrainSettings.CHECKPOINT_EVERY.checked(v);
    return this;
  }

  /** Train on a table instead of the named data set of {@link #dataset}. */
  public TrainingConfigBuilder table(TableInput v) { table = Objects.requireNonNull(v, flag(DATA)); return this; }

  /** Continue the run in {@link #output} from its newest intact checkpoint instead of starting afresh. */
  public TrainingConfigBuilder resume(boolean v) { resume = v; return this; }

  public TrainingConfig build() {
    return new TrainingConfig(this);
  }
}
