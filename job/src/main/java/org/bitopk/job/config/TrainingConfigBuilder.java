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
  String dataset = "fashion-mnist";
  String data;
  ModelSpec model;
  Mode mode = Mode.BIDIRECTIONAL;
  Integer workers;
  int tasks;
  CompressorSpec uplink = CompressorSpec.parse("topk");
  CompressorSpec downlink = CompressorSpec.parse("topk");
  double densityUp = 0.01;
  double densityDown = 0.01;
  KRounding kRounding = KRounding.FLOOR;
  ValueFormat valuesUp = ValueFormat.FP32;
  ValueFormat valuesDown = ValueFormat.FP32;
  Integer kUp;
  Integer kDown;
  String x0;
  Double learningRate;
  double lrDecay = 1.0;
  double momentum = 0.0;
  int batchSize = 32;
  int epochs = 1;
  long maxIterations = 0;
  boolean nonIid;
  long seed = 42;
  String output;
  boolean overwrite;
  int evalEvery = 1;
  int consistencyCheckEvery = 100;
  int snapshotEvery = 32;
  int updateWindow = 32;
  boolean xi;
  List<Integer> captureVectors = List.of();
  boolean quiet;
  UplinkFeedback uplinkFeedback = UplinkFeedback.EF14;
  DownlinkScheme downlinkScheme;
  Double upMemoryRate;
  Double downMemoryRate;
  int checkpointEvery;
  boolean resume;
  TableInput table;

  TrainingConfigBuilder() {}

  /** The Spark master URL; its syntax is checked here ({@link MasterUrl}), its reachability before Spark starts. */
  public TrainingConfigBuilder master(String v) {
    String m = nonBlank(MASTER, v);
    MasterUrl.parse(m);
    master = m;
    return this;
  }

  public TrainingConfigBuilder dataset(String v) {
    String d = nonBlank(DATASET, v);
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
  public TrainingConfigBuilder data(String v) { data = v == null ? null : nonBlank(DATA, v); return this; }
  public TrainingConfigBuilder model(ModelSpec v) { model = v; return this; }
  public TrainingConfigBuilder mode(Mode v) { mode = Objects.requireNonNull(v, flag(MODE)); return this; }
  public TrainingConfigBuilder workers(int v) { workers = atLeast(WORKERS, v, 1); return this; }

  /** Spark tasks per round (1..workers); 0 = as many as the cluster has task slots, at most workers. */
  public TrainingConfigBuilder tasks(int v) { tasks = atLeast(TASKS, v, 0); return this; }
  public TrainingConfigBuilder uplink(CompressorSpec v) {
    uplink = Objects.requireNonNull(v, flag(UPLINK));
    return this;
  }
  public TrainingConfigBuilder downlink(CompressorSpec v) {
    downlink = Objects.requireNonNull(v, flag(DOWNLINK));
    return this;
  }
  public TrainingConfigBuilder densityUp(double v) { densityUp = density(DENSITY_UP, v); return this; }
  public TrainingConfigBuilder densityDown(double v) { densityDown = density(DENSITY_DOWN, v); return this; }
  /** The uplink k directly, instead of a density (null: from the density). */
  public TrainingConfigBuilder kUp(Integer v) { kUp = v == null ? null : atLeast(K_UP, v, 1); return this; }
  /** The downlink k directly, instead of a density (null: from the density). */
  public TrainingConfigBuilder kDown(Integer v) { kDown = v == null ? null : atLeast(K_DOWN, v, 1); return this; }
  /** The counterexample's x₀ file (null: generated from the seed; an empty text is refused). */
  public TrainingConfigBuilder x0(String v) { x0 = v == null ? null : nonBlank(X0, v); return this; }
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

  public TrainingConfigBuilder learningRate(double v) {
    if (!(v > 0 && Double.isFinite(v))) {
      throw new IllegalArgumentException(flag(LR) + ": expected a positive number, got " + v);
    }
    learningRate = v;
    return this;
  }

  public TrainingConfigBuilder lrDecay(double v) {
    if (!(v > 0 && v <= 1)) {
      throw new IllegalArgumentException(flag(LR_DECAY) + ": expected a factor in (0, 1], got " + v);
    }
    lrDecay = v;
    return this;
  }

  public TrainingConfigBuilder momentum(double v) {
    if (!(v >= 0 && v < 1)) {
      throw new IllegalArgumentException(flag(MOMENTUM) + ": expected a value in [0, 1), got " + v);
    }
    momentum = v;
    return this;
  }

  public TrainingConfigBuilder batchSize(int v) { batchSize = atLeast(BATCH_SIZE, v, 1); return this; }
  public TrainingConfigBuilder epochs(int v) { epochs = atLeast(EPOCHS, v, 1); return this; }

  public TrainingConfigBuilder maxIterations(long v) {
    if (v < 0) {
      throw new IllegalArgumentException(flag(MAX_ITERATIONS) + ": expected >= 0 (0 = no limit), got " + v);
    }
    maxIterations = v;
    return this;
  }

  public TrainingConfigBuilder nonIid(boolean v) { nonIid = v; return this; }
  public TrainingConfigBuilder seed(long v) { seed = v; return this; }
  /** The output directory URI; null for runs/&lt;timestamp&gt; (an empty text is refused). */
  public TrainingConfigBuilder output(String v) { output = v == null ? null : nonBlank(OUTPUT, v); return this; }
  public TrainingConfigBuilder overwrite(boolean v) { overwrite = v; return this; }
  public TrainingConfigBuilder evalEvery(int v) { evalEvery = atLeast(EVAL_EVERY, v, 1); return this; }

  public TrainingConfigBuilder consistencyCheckEvery(int v) {
    consistencyCheckEvery = atLeast(CONSISTENCY_CHECK_EVERY, v, 0);
    return this;
  }

  public TrainingConfigBuilder snapshotEvery(int v) { snapshotEvery = atLeast(SNAPSHOT_EVERY, v, 1); return this; }
  public TrainingConfigBuilder updateWindow(int v) { updateWindow = atLeast(UPDATE_WINDOW, v, 1); return this; }
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
    String text = nonBlank(CAPTURE_VECTORS, v);
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
  public TrainingConfigBuilder upMemoryRate(Double v) { upMemoryRate = rate(UP_MEMORY_RATE, v); return this; }

  /** α_dwn in (0, 1], or null for the default 1/(2(ω + 1)) of an unbiased compressor. */
  public TrainingConfigBuilder downMemoryRate(Double v) { downMemoryRate = rate(DOWN_MEMORY_RATE, v); return this; }

  private static Double rate(String key, Double v) {
    if (v != null && !(v > 0 && v <= 1)) {
      throw new IllegalArgumentException(flag(key) + ": expected a rate in (0, 1], got " + v);
    }
    return v;
  }
  public TrainingConfigBuilder quiet(boolean v) { quiet = v; return this; }

  /** Every N rounds, write a checkpoint to output/checkpoints (0 = never). */
  public TrainingConfigBuilder checkpointEvery(int v) {
    checkpointEvery = atLeast(CHECKPOINT_EVERY, v, 0);
    return this;
  }

  /** Train on a table instead of a named data set (null: the data set of {@link #dataset}). */
  public TrainingConfigBuilder table(TableInput v) { table = v; return this; }

  /** Continue the run in {@link #output} from its newest intact checkpoint instead of starting afresh. */
  public TrainingConfigBuilder resume(boolean v) { resume = v; return this; }

  public TrainingConfig build() {
    return new TrainingConfig(this);
  }

  private static String nonBlank(String key, String v) {
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(flag(key) + ": expected a non-empty value, got '" + (v == null ? "" : v)
          + "' (leave the flag out for its default)");
    }
    return v.trim();
  }

  private static int atLeast(String key, int v, int min) {
    if (v < min) {
      throw new IllegalArgumentException(flag(key) + ": expected an integer >= " + min + ", got " + v);
    }
    return v;
  }

  private static double density(String key, double v) {
    if (!(v > 0 && v <= 1)) {
      throw new IllegalArgumentException(flag(key) + ": expected a density in (0, 1], got " + v);
    }
    return v;
  }
}
