package org.bitopk.job.config;

import static org.bitopk.job.config.TrainFlags.*;

import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.engine.UplinkFeedback;
import org.bitopk.job.problem.network.DatasetChoice;
import org.bitopk.job.problem.network.ModelSpec;
import org.bitopk.job.problem.quadratic.CounterexampleSetting;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;

/** The validating builder of a {@link TrainingConfig}; every setter names its flag in the error message. */
public final class TrainingConfigBuilder {
  String master;
  String dataset = TrainSettings.DATASET.defaultValue().orElseThrow();
  String data;
  ModelSpec model;
  Mode mode = TrainSettings.MODE.defaultValue().orElseThrow();
  Integer workers;
  int tasks = TrainSettings.TASKS.defaultValue().orElseThrow();
  CompressorSpec uplink = TrainSettings.UPLINK.defaultValue().orElseThrow();
  CompressorSpec downlink = TrainSettings.DOWNLINK.defaultValue().orElseThrow();
  double densityUp = TrainSettings.DENSITY_UP.defaultValue().orElseThrow();
  double densityDown = TrainSettings.DENSITY_DOWN.defaultValue().orElseThrow();
  KRounding kRounding = TrainSettings.K_ROUNDING.defaultValue().orElseThrow();
  ValueFormat valuesUp = TrainSettings.VALUES_UP.defaultValue().orElseThrow();
  ValueFormat valuesDown = TrainSettings.VALUES_DOWN.defaultValue().orElseThrow();
  Integer kUp;
  Integer kDown;
  String x0;
  Double learningRate;
  double lrDecay = TrainSettings.LR_DECAY.defaultValue().orElseThrow();
  double momentum = TrainSettings.MOMENTUM.defaultValue().orElseThrow();
  int batchSize = TrainSettings.BATCH_SIZE.defaultValue().orElseThrow();
  int epochs = TrainSettings.EPOCHS.defaultValue().orElseThrow();
  long maxIterations = TrainSettings.MAX_ITERATIONS.defaultValue().orElseThrow();
  boolean nonIid = TrainSettings.SPLIT.defaultValue().orElseThrow().equals("non-iid");
  long seed = TrainSettings.SEED.defaultValue().orElseThrow();
  String output;
  boolean overwrite = TrainSettings.OVERWRITE.defaultValue().orElseThrow();
  int evalEvery = TrainSettings.EVAL_EVERY.defaultValue().orElseThrow();
  int consistencyCheckEvery = TrainSettings.CONSISTENCY_CHECK_EVERY.defaultValue().orElseThrow();
  int snapshotEvery = TrainSettings.SNAPSHOT_EVERY.defaultValue().orElseThrow();
  int updateWindow = TrainSettings.UPDATE_WINDOW.defaultValue().orElseThrow();
  boolean xi = TrainSettings.XI.defaultValue().orElseThrow();
  List<Integer> captureVectors = List.of();
  boolean quiet = TrainSettings.QUIET.defaultValue().orElseThrow();
  UplinkFeedback uplinkFeedback = UplinkFeedback.parse(TrainSettings.UPLINK_FEEDBACK.defaultValue().orElseThrow());
  DownlinkScheme downlinkScheme;
  Double upMemoryRate;
  Double downMemoryRate;
  int checkpointEvery = TrainSettings.CHECKPOINT_EVERY.defaultValue().orElseThrow();
  boolean resume;
  TableInput table;

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

  /** The data directory URI; null for the dataset's default location (an empty text is refused). */
  public TrainingConfigBuilder data(String v) { data = v == null ? null : TrainSettings.DATA.checked(v); return this; }
  public TrainingConfigBuilder model(ModelSpec v) { model = v; return this; }
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
  /** The uplink k directly, instead of a density (null: from the density). */
  public TrainingConfigBuilder kUp(Integer v) {
    kUp = v == null ? null : TrainSettings.K_UP.checked(v);
    return this;
  }
  /** The downlink k directly, instead of a density (null: from the density). */
  public TrainingConfigBuilder kDown(Integer v) {
    kDown = v == null ? null : TrainSettings.K_DOWN.checked(v);
    return this;
  }
  /** The counterexample's x₀ file (null: generated from the seed; an empty text is refused). */
  public TrainingConfigBuilder x0(String v) { x0 = v == null ? null : TrainSettings.X0.checked(v); return this; }
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
  /** The output directory URI; null for runs/&lt;timestamp&gt; (an empty text is refused). */
  public TrainingConfigBuilder output(String v) {
    output = v == null ? null : TrainSettings.OUTPUT.checked(v);
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
   * numbers, e.g. {@code 1,100,1000}; null for none. Refused: an empty text, an entry that is not a positive
   * integer, a round listed twice. Rounds beyond the run's end are refused once the run's length is known
   * ({@code PreparedRun}).
   */
  public TrainingConfigBuilder captureVectors(String v) {
    if (v == null) {
      captureVectors = List.of();
      return this;
    }
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

  /** null: the mode's default (ef when bidirectional, else average). */
  public TrainingConfigBuilder downlinkScheme(DownlinkScheme v) { downlinkScheme = v; return this; }

  /** α_up in (0, 1], or null for the default 1/(2(ω + 1)) of an unbiased compressor. */
  public TrainingConfigBuilder upMemoryRate(Double v) {
    upMemoryRate = v == null ? null : TrainSettings.UP_MEMORY_RATE.checked(v);
    return this;
  }

  /** α_dwn in (0, 1], or null for the default 1/(2(ω + 1)) of an unbiased compressor. */
  public TrainingConfigBuilder downMemoryRate(Double v) {
    downMemoryRate = v == null ? null : TrainSettings.DOWN_MEMORY_RATE.checked(v);
    return this;
  }

  public TrainingConfigBuilder quiet(boolean v) { quiet = v; return this; }

  /** Every N rounds, write a checkpoint to output/checkpoints (0 = never). */
  public TrainingConfigBuilder checkpointEvery(int v) {
    checkpointEvery = TrainSettings.CHECKPOINT_EVERY.checked(v);
    return this;
  }

  /** Train on a table instead of a named data set (null: the data set of {@link #dataset}). */
  public TrainingConfigBuilder table(TableInput v) { table = v; return this; }

  /** Continue the run in {@link #output} from its newest intact checkpoint instead of starting afresh. */
  public TrainingConfigBuilder resume(boolean v) { resume = v; return this; }

  public TrainingConfig build() {
    return new TrainingConfig(this);
  }
}
