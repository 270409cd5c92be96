package org.bitopk.job.config;

import static org.bitopk.job.config.Mode.BIDIRECTIONAL;
import static org.bitopk.job.config.Mode.UNIDIRECTIONAL;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.compression.ValueFormat;

/**
 * The train command's settings, each declared once ({@link TrainSetting}), in the order {@code --help} lists
 * them: {@link TrainOptions} makes its options of them, the builder of a {@link TrainingConfig} takes their
 * defaults and checks, {@link FlagValues} writes a run's config.json with their forms, and the Spark ML
 * estimator takes their defaults. A new setting is one declaration here and its use.
 */
public final class TrainSettings {
  private static final String TABLE_INPUT = "Table input: ";
  /** Filled as the declarations below run, in their order (a class's static fields are set top to bottom). */
  private static final List<TrainSetting<?>> DECLARED = new ArrayList<>();

  public static final TrainSetting<String> CONFIG = declared(TrainSetting.of(TrainFlags.CONFIG, String.class)
      .label("FILE")
      .help("Properties or JSON file whose keys are these flag names without dashes (e.g. lr=0.05); "
          + "flags on the command line override it. A run's config.json works as is.")
      .notRecorded().runner());

  public static final TrainSetting<String> MASTER = declared(TrainSetting.of(TrainFlags.MASTER, String.class)
      .label("URL")
      .help("Spark master (default: the one spark-submit sets, else local[*]).")
      .checkedBy(SettingCheck.nonBlank()));

  public static final TrainSetting<String> DATASET = declared(TrainSetting.of(TrainFlags.DATASET, String.class)
      .label("NAME")
      .help("${bundle:datasets} (default: fashion-mnist; not with table input).")
      .whenAbsent("fashion-mnist").checkedBy(SettingCheck.nonBlank()));

  public static final TrainSetting<String> DATA = declared(TrainSetting.of(TrainFlags.DATA, String.class).label("DIR")
      .help("Directory URI of the dataset files (default: the dataset's standard location, e.g. "
          + "/usr/share/datasets/fashion-mnist); with --data-format the table's path, also written FORMAT:PATH.")
      .checkedBy(SettingCheck.nonBlank()));

  public static final TrainSetting<String> DATA_FORMAT = declared(TrainSetting.of(TrainFlags.DATA_FORMAT, String.class)
      .label("FORMAT")
      .help("Train on the table at --data, read by the executors with this Spark data source: parquet, "
          + "csv (header line, types inferred), json, orc or libsvm."));

  public static final TrainSetting<String> TABLE = declared(TrainSetting.of(TrainFlags.TABLE, String.class)
      .label("NAME")
      .help("Train on this table of the Spark catalog (Hive metastore table or view)."));

  public static final TrainSetting<String> FEATURES = declared(TrainSetting.of(TrainFlags.FEATURES, String.class)
      .label("COLS")
      .help(TABLE_INPUT + "the features, one array or ML Vector column, a comma-separated list of numeric "
          + "columns, or PREFIX* (default: every column but the label)."));

  public static final TrainSetting<String> LABEL = declared(TrainSetting.of(TrainFlags.LABEL, String.class).label("COL")
      .help(TABLE_INPUT + "the label column, class indices 0, 1, ... or class names (indexed in sorted "
          + "order, recorded in config.json) (default: label).")
      .whenAbsent("label"));

  public static final TrainSetting<String> INPUT_SHAPE = declared(TrainSetting.of(TrainFlags.INPUT_SHAPE, String.class)
      .label("CxHxW")
      .help(TABLE_INPUT + "the image shape of the features, channel-planar (default: 1xSxS for S*S "
          + "features, 3xSxS for 3*S*S, else 1x1xN)."));

  public static final TrainSetting<String> TEST_DATA = declared(TrainSetting.of(TrainFlags.TEST_DATA, String.class)
      .label("PATH")
      .help(TABLE_INPUT + "the test table, with the training table's columns and format (or FORMAT:PATH).")
      );

  public static final TrainSetting<Double> TEST_FRACTION = declared(
      TrainSetting.of(TrainFlags.TEST_FRACTION, Double.class)
      .label("F")
      .help("Table input without --test-data: hold out this seeded fraction of the rows for testing "
          + "(default: 0.1).")
      .whenAbsent(0.1));

  public static final TrainSetting<String> NORMALIZE = declared(TrainSetting.of(TrainFlags.NORMALIZE, String.class)
      .label("SPEC")
      .help(TABLE_INPUT + "auto (per-channel mean and std of the training rows, computed by the "
          + "executors), none, or MEAN:STD per channel, e.g. 0.2860:0.3530 (default: auto).")
      .whenAbsent("auto"));

  public static final TrainSetting<Double> FEATURE_SCALE = declared(
      TrainSetting.of(TrainFlags.FEATURE_SCALE, Double.class)
      .label("S")
      .help(TABLE_INPUT + "divide the features by S before normalising, e.g. 255 for 8-bit pixels "
          + "(default: 1).")
      .whenAbsent(1.0));

  public static final TrainSetting<String> MODEL = declared(TrainSetting.of(TrainFlags.MODEL, String.class)
      .label("NAME|FILE")
      .help("${bundle:models} (default: the paper's model for the dataset: mnist mlp-small, fashion-mnist "
          + "mlp, cifar10 vgg19-bn), or a network of your own: a DL4J MultiLayerConfiguration JSON file or a Keras 2 "
          + "Sequential .h5 file (any Hadoop FileSystem URI), a softmax classifier for the data's image shape and "
          + "classes."));

  public static final TrainSetting<Mode> MODE = declared(TrainSetting.of(TrainFlags.MODE, Mode.class).label("MODE")
      .help("bidirectional (compress up and down), unidirectional (compress up only) or dense "
          + "(plain SGD) (default: bidirectional).")
      .byDefault(Mode.BIDIRECTIONAL).parsedBy(Mode::parse).recordedAs(Mode::cliName));

  public static final TrainSetting<Integer> WORKERS = declared(TrainSetting.of(TrainFlags.WORKERS, Integer.class)
      .label("P")
      .help("Number of workers P, the algorithm's P: each has its own shard, residual and compressor "
          + "(default: 4; the counterexample's number of centres, which it must equal).")
      .whenAbsent(4).checkedBy(SettingCheck.atLeast(1)));

  public static final TrainSetting<Integer> TASKS = declared(TrainSetting.of(TrainFlags.TASKS, Integer.class).label("S")
      .help("Spark tasks per round: the P workers are packed into S tasks, each running its workers one "
          + "after the other on one model replica; results are identical for every S (default: 0 = min(P, the "
          + "cluster's task slots)).")
      .byDefault(0).checkedBy(SettingCheck.atLeast(0)));

  public static final TrainSetting<CompressorSpec> UPLINK = declared(
      TrainSetting.of(TrainFlags.UPLINK, CompressorSpec.class)
      .label("SPEC").help("Worker compressor: ${bundle:compressors} (default: topk; none in dense mode).")
      .byDefault(CompressorSpec.parse("topk")).parsedBy(CompressorSpec::parse).recordedAs(CompressorSpec::toString)
      .modes(BIDIRECTIONAL, UNIDIRECTIONAL));

  public static final TrainSetting<CompressorSpec> DOWNLINK = declared(TrainSetting.of(TrainFlags.DOWNLINK,
          CompressorSpec.class)
      .label("SPEC").help("Server compressor, same choices as --uplink; used in bidirectional mode (default: topk).")
      .byDefault(CompressorSpec.parse("topk")).parsedBy(CompressorSpec::parse).recordedAs(CompressorSpec::toString)
      .modes(BIDIRECTIONAL));

  public static final TrainSetting<Double> DENSITY_UP = declared(TrainSetting.of(TrainFlags.DENSITY_UP, Double.class)
      .label("RHO").help("Uplink density in (0, 1]: k = rho*d (default: ${DEFAULT-VALUE}).")
      .byDefault(0.01).checkedBy(SettingCheck.density()).modes(BIDIRECTIONAL, UNIDIRECTIONAL));

  public static final TrainSetting<Double> DENSITY_DOWN = declared(
      TrainSetting.of(TrainFlags.DENSITY_DOWN, Double.class)
      .label("RHO").help("Downlink density in (0, 1] (default: ${DEFAULT-VALUE}).")
      .byDefault(0.01).checkedBy(SettingCheck.density()).modes(BIDIRECTIONAL));

  public static final TrainSetting<Integer> K_UP = declared(TrainSetting.of(TrainFlags.K_UP, Integer.class).label("K")
      .help("Uplink k directly, instead of --density-up (not in dense mode).")
      .checkedBy(SettingCheck.atLeast(1)).omittedWhenAbsent().modes(BIDIRECTIONAL, UNIDIRECTIONAL));

  public static final TrainSetting<Integer> K_DOWN = declared(TrainSetting.of(TrainFlags.K_DOWN, Integer.class)
      .label("K")
      .help("Downlink k directly, instead of --density-down (bidirectional mode only).")
      .checkedBy(SettingCheck.atLeast(1)).omittedWhenAbsent().modes(BIDIRECTIONAL));

  public static final TrainSetting<KRounding> K_ROUNDING = declared(
      TrainSetting.of(TrainFlags.K_ROUNDING, KRounding.class)
      .label("RULE")
      .help("How a density becomes k: floor (k = max(1, floor(rho*d))) or reference (Zou's scripts: the "
          + "worker keeps n - int((1 - rho)*n) ~ ceil(rho*n) entries, the server's topk keeps those strictly above "
          + "the k-th largest) (default: floor).")
      .byDefault(KRounding.FLOOR).parsedBy(KRounding::parse).recordedAs(KRounding::text)
      .modes(BIDIRECTIONAL, UNIDIRECTIONAL));

  public static final TrainSetting<ValueFormat> VALUES_UP = declared(
      TrainSetting.of(TrainFlags.VALUES_UP, ValueFormat.class)
      .label("FORMAT")
      .help("Format of the values workers send: fp32, fp16, bf16 or int8 (one byte a value and a "
          + "per-message scale max|v|/127). Workers select on the exact c and their residual keeps what rounding "
          + "loses; --uplink-feedback ef14 or none only (default: fp32).")
      .byDefault(ValueFormat.FP32).parsedBy(ValueFormat::parse).recordedAs(ValueFormat::text)
      .omittedWhen(f -> f == ValueFormat.FP32).modes(BIDIRECTIONAL, UNIDIRECTIONAL));

  public static final TrainSetting<ValueFormat> VALUES_DOWN = declared(TrainSetting.of(TrainFlags.VALUES_DOWN,
          ValueFormat.class)
      .label("FORMAT")
      .help("Format of the values the server sends, as --values-up; its residual keeps what rounding "
          + "loses; --downlink-scheme ef only (default: fp32).")
      .byDefault(ValueFormat.FP32).parsedBy(ValueFormat::parse).recordedAs(ValueFormat::text)
      .omittedWhen(f -> f == ValueFormat.FP32).modes(BIDIRECTIONAL));

  public static final TrainSetting<Double> LR = declared(TrainSetting.of(TrainFlags.LR, Double.class).label("LR")
      .help("Learning rate, applied by workers before compression: c = e + lr*g (default: 0.1; 0.01 for "
          + "the counterexample).")
      .whenAbsent(0.1).checkedBy(SettingCheck.positive()));

  public static final TrainSetting<Double> LR_DECAY = declared(TrainSetting.of(TrainFlags.LR_DECAY, Double.class)
      .label("F")
      .help("Multiply the learning rate by F after every epoch (default: ${DEFAULT-VALUE} = constant).")
      .byDefault(1.0).checkedBy(SettingCheck.factor()));

  public static final TrainSetting<String> UPLINK_FEEDBACK = declared(TrainSetting.of(TrainFlags.UPLINK_FEEDBACK,
          String.class)
      .label("SCHEME")
      .help("What workers remember: ef14 (error feedback, c = e + lr*g; default), ef21 (gradient estimate "
          + "g_i, send C(grad - g_i); the server steps with lr * mean g_i), artemis (the same memory moved by "
          + "alpha_up * C(grad - g_i), as in Artemis and MCM) or none (plain compression).")
      .byDefault("ef14"));

  public static final TrainSetting<Double> UP_MEMORY_RATE = declared(
      TrainSetting.of(TrainFlags.UP_MEMORY_RATE, Double.class)
      .label("ALPHA")
      .help("alpha_up in (0, 1] of --uplink-feedback artemis (default: 1/(2(omega + 1)) of an unbiased "
          + "--uplink, randomk:scaled or natural; required for the others).")
      .checkedBy(SettingCheck.rate()).omittedWhenAbsent());

  public static final TrainSetting<Double> DOWN_MEMORY_RATE = declared(TrainSetting.of(TrainFlags.DOWN_MEMORY_RATE,
          Double.class)
      .label("ALPHA")
      .help("alpha_down in (0, 1] of --downlink-scheme mcm (default: 1/(2(omega + 1)) of an unbiased "
          + "--downlink; required for the others; 1 = ef21-p).")
      .checkedBy(SettingCheck.rate()).omittedWhenAbsent());

  public static final TrainSetting<String> DOWNLINK_SCHEME = declared(TrainSetting.of(TrainFlags.DOWNLINK_SCHEME,
          String.class)
      .label("SCHEME")
      .help("What the server broadcasts: ef (server error feedback; bidirectional default), ef21-p "
          + "(EF21-P: C(x - w) of the exact model x and the workers' w), mcm (MCM: C(x - H) of the central model x "
          + "and a memory H; workers compute at H + C(x - H)); bidirectional only; or average "
          + "(unidirectional and dense). Default: the mode's."));

  public static final TrainSetting<Double> MOMENTUM = declared(TrainSetting.of(TrainFlags.MOMENTUM, Double.class)
      .label("MU")
      .help("Worker-side momentum in [0, 1): m = mu*m + g, then c = e + lr*m (default: ${DEFAULT-VALUE}).")
      .byDefault(0.0).checkedBy(SettingCheck.belowOne()));

  public static final TrainSetting<Integer> BATCH_SIZE = declared(TrainSetting.of(TrainFlags.BATCH_SIZE, Integer.class)
      .label("B").help("Minibatch size per worker (default: ${DEFAULT-VALUE}).")
      .byDefault(32).checkedBy(SettingCheck.atLeast(1)));

  public static final TrainSetting<Integer> EPOCHS = declared(TrainSetting.of(TrainFlags.EPOCHS, Integer.class)
      .label("N")
      .help("Epochs; one epoch = min over workers of floor(|D_i|/B) rounds (default: ${DEFAULT-VALUE}).")
      .byDefault(1).checkedBy(SettingCheck.atLeast(1)));

  public static final TrainSetting<Long> MAX_ITERATIONS = declared(
      TrainSetting.of(TrainFlags.MAX_ITERATIONS, Long.class)
      .label("N").help("Stop after N rounds even within an epoch; 0 = no limit (default: ${DEFAULT-VALUE}).")
      .byDefault(0L).checkedBy(SettingCheck.limit()));

  public static final TrainSetting<String> SPLIT = declared(TrainSetting.of(TrainFlags.SPLIT, String.class)
      .label("KIND")
      .help("iid (equal random split) or non-iid (sorted labels, 2 shards per worker) (default: ${DEFAULT-VALUE}).")
      .byDefault("iid"));

  public static final TrainSetting<Long> SEED = declared(TrainSetting.of(TrainFlags.SEED, Long.class).label("N")
      .help("Seed of the model initialisation, split, minibatches and compressors (default: ${DEFAULT-VALUE}).")
      .byDefault(42L));

  public static final TrainSetting<String> X0 = declared(TrainSetting.of(TrainFlags.X0, String.class).label("FILE")
      .help("Counterexample only: read x0 from FILE (any Hadoop FileSystem URI): a .npy 1-D float32/float64 "
          + "array or text, numbers separated by whitespace, '#' comments; exactly d values (default: generated, "
          + "start + noise*N(0,1) from java.util.Random(--seed)).")
      .checkedBy(SettingCheck.nonBlank()).omittedWhenAbsent());

  public static final TrainSetting<String> OUTPUT = declared(TrainSetting.of(TrainFlags.OUTPUT, String.class)
      .label("DIR")
      .help("Output directory URI (default: runs/<UTC timestamp>).")
      .checkedBy(SettingCheck.nonBlank()).runner());

  public static final TrainSetting<Boolean> OVERWRITE = declared(TrainSetting.of(TrainFlags.OVERWRITE, Boolean.class)
      .help("Replace the run in the output directory, finished or not: the old "
          + "run's files (checkpoints and logs included) are removed first. A directory holding anything bitopk did "
          + "not write is never replaced.")
      .byDefault(false).notRecorded().runner());

  public static final TrainSetting<Integer> EVAL_EVERY = declared(TrainSetting.of(TrainFlags.EVAL_EVERY, Integer.class)
      .label("N")
      .help("Evaluate on the test set every N epochs; the last epoch always (default: ${DEFAULT-VALUE}). With "
          + "1, a run shorter than 5 epochs also evaluates after every tenth of its rounds (when that is 10 rounds "
          + "or more), so that its report draws accuracy as a curve; 2 or more turns that off.")
      .byDefault(1).checkedBy(SettingCheck.atLeast(1)));

  public static final TrainSetting<Integer> CONSISTENCY_CHECK_EVERY = declared(TrainSetting.of(
          TrainFlags.CONSISTENCY_CHECK_EVERY, Integer.class)
      .label("N")
      .help("Every N iterations, check that every replica equals the driver's model bit for bit and fail "
          + "if not; 0 = never (default: ${DEFAULT-VALUE}).")
      .byDefault(100).checkedBy(SettingCheck.atLeast(0)));

  public static final TrainSetting<Integer> SNAPSHOT_EVERY = declared(TrainSetting.of(TrainFlags.SNAPSHOT_EVERY,
          Integer.class)
      .label("N")
      .help("Broadcast a dense snapshot of the model every N iterations, for replicas that fell behind "
          + "(new or restarted executors) (default: ${DEFAULT-VALUE}).")
      .byDefault(32).checkedBy(SettingCheck.atLeast(1)));

  public static final TrainSetting<Integer> UPDATE_WINDOW = declared(
      TrainSetting.of(TrainFlags.UPDATE_WINDOW, Integer.class)
      .label("N")
      .help("Keep the broadcasts of the last N sparse updates alive, so a replica up to N iterations behind "
          + "catches up without the snapshot; must be >= --snapshot-every (default: ${DEFAULT-VALUE}).")
      .byDefault(32).checkedBy(SettingCheck.atLeast(1)));

  public static final TrainSetting<Boolean> XI = declared(TrainSetting.of(TrainFlags.XI, Boolean.class)
      .help("Also compute xi = |TopK(sum c_i) - sum TopK(c_i)| / |sum lr*g_i| "
          + "(ships dense vectors: slow, for diagnostics).")
      .byDefault(false));

  public static final TrainSetting<String> CAPTURE_VECTORS = declared(TrainSetting.of(TrainFlags.CAPTURE_VECTORS,
          String.class)
      .label("ROUNDS")
      .help("Write every worker's compensated vector c_i = e_i + lr*g_i (what its uplink compressor is "
          + "applied to) at these 1-based rounds, e.g. 1,100,1000, to <output>/captures/round-NNNNNN/"
          + "worker-NNNN.bin (format in job/docs/compressor-evaluation.md); read them with evaluate-compressors. "
          + "Rounds must be positive, distinct and within the run.")
      .checkedBy(SettingCheck.nonBlank()));

  public static final TrainSetting<Integer> CHECKPOINT_EVERY = declared(TrainSetting.of(TrainFlags.CHECKPOINT_EVERY,
          Integer.class)
      .label("N")
      .help("Every N iterations, write a checkpoint (model, server and worker residuals, counters) to "
          + "<output>/checkpoints, atomically; the newest two are kept; 0 = never (default: ${DEFAULT-VALUE}).")
      .byDefault(0).checkedBy(SettingCheck.atLeast(0)));

  public static final TrainSetting<String> RESUME = declared(TrainSetting.of(TrainFlags.RESUME, String.class)
      .label("DIR")
      .help("Continue the unfinished run in DIR from its newest intact checkpoint, with the settings of "
          + "DIR/config.json (flags given here override them; the ones that change the arithmetic must match). "
          + "In deterministic settings the result equals the uninterrupted run bit for bit.")
      .notRecorded().runner());

  public static final TrainSetting<Boolean> QUIET = declared(TrainSetting.of(TrainFlags.QUIET, Boolean.class)
      .help("No progress bar (it is also off when stderr is not a terminal).").byDefault(false).notRecorded());

  public static final TrainSetting<Boolean> VERBOSE = declared(TrainSetting.of(TrainFlags.VERBOSE, Boolean.class)
      .help("Spark's, DL4J's and Hadoop's log messages and the full trace of a "
          + "failure on the console (default: only in <output>/logs/driver-<time>.log; the console gets one line).")
      .byDefault(false).notRecorded());

  /** Every setting, in the order of {@code --help}: the order of the declarations above. */
  public static final List<TrainSetting<?>> ALL = List.copyOf(DECLARED);

  private TrainSettings() {}

  private static <T> TrainSetting<T> declared(TrainSetting.Declaration<T> declaration) {
    TrainSetting<T> setting = declaration.build();
    DECLARED.add(setting);
    return setting;
  }

  /** The setting of that key, or empty. */
  public static Optional<TrainSetting<?>> named(String key) {
    return ALL.stream().filter(s -> s.key().equals(key)).findFirst();
  }

  /**
   * The keys of the settings a mode does not use ({@code dense}: the compression's, {@code unidirectional}: the
   * downlink's); a run refuses them unless they state what the mode implies.
   */
  public static Set<String> notApplicableTo(String mode) {
    Set<String> keys = new LinkedHashSet<>();
    for (Mode m : Mode.values()) {
      if (m.cliName().equals(mode)) {
        ALL.stream().filter(s -> !s.appliesTo(m)).forEach(s -> keys.add(s.key()));
      }
    }
    return keys;
  }
}
