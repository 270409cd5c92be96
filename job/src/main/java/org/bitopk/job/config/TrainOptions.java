package org.bitopk.job.config;

import static org.bitopk.job.config.TrainFlags.*;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.problem.network.ModelSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The train flags as picocli options (names from {@link TrainFlags}, help, defaults) and their reading into one
 * {@link TrainingConfig}, refusing settings that do not apply. The {@code train} command adds running to these;
 * code that holds settings as a map reads them through {@link FlagValues#configOf}.
 */
public class TrainOptions {
  private static final TrainingConfig DEFAULTS = TrainingConfig.builder().build();

  @Spec
  protected CommandLine.Model.CommandSpec spec;

  @Option(names = "--" + CONFIG, paramLabel = "FILE",
      description = "Properties or JSON file whose keys are these flag names without dashes (e.g. lr=0.05); "
          + "flags on the command line override it. A run's config.json works as is.")
  String config;

  @Option(names = "--" + MASTER, paramLabel = "URL",
      description = "Spark master (default: the one spark-submit sets, else local[*]).")
  String master;

  @Option(names = "--" + DATASET, paramLabel = "NAME",
      description = "${bundle:datasets} (default: fashion-mnist; not with table input).")
  String dataset;

  @Option(names = "--" + DATA, paramLabel = "DIR",
      description = "Directory URI of the dataset files (default: the dataset's standard location, e.g. "
          + "/usr/share/datasets/fashion-mnist); with --data-format the table's path, also written FORMAT:PATH.")
  String data;

  @Option(names = "--" + DATA_FORMAT, paramLabel = "FORMAT",
      description = "Train on the table at --data, read by the executors with this Spark data source: parquet, "
          + "csv (header line, types inferred), json, orc or libsvm.")
  String dataFormat;

  @Option(names = "--" + TABLE, paramLabel = "NAME",
      description = "Train on this table of the Spark catalog (Hive metastore table or view).")
  String table;

  @Option(names = "--" + FEATURES, paramLabel = "COLS",
      description = "Table input: the features, one array or ML Vector column, a comma-separated list of numeric "
          + "columns, or PREFIX* (default: every column but the label).")
  String features;

  @Option(names = "--" + LABEL, paramLabel = "COL",
      description = "Table input: the label column, class indices 0, 1, ... or class names (indexed in sorted "
          + "order, recorded in config.json) (default: label).")
  String label;

  @Option(names = "--" + INPUT_SHAPE, paramLabel = "CxHxW",
      description = "Table input: the image shape of the features, channel-planar (default: 1xSxS for S*S "
          + "features, 3xSxS for 3*S*S, else 1x1xN).")
  String inputShape;

  @Option(names = "--" + TEST_DATA, paramLabel = "PATH",
      description = "Table input: the test table, with the training table's columns and format (or FORMAT:PATH).")
  String testData;

  @Option(names = "--" + TEST_FRACTION, paramLabel = "F",
      description = "Table input without --test-data: hold out this seeded fraction of the rows for testing "
          + "(default: 0.1).")
  Double testFraction;

  @Option(names = "--" + NORMALIZE, paramLabel = "SPEC",
      description = "Table input: auto (per-channel mean and std of the training rows, computed by the "
          + "executors), none, or MEAN:STD per channel, e.g. 0.2860:0.3530 (default: auto).")
  String normalize;

  @Option(names = "--" + FEATURE_SCALE, paramLabel = "S",
      description = "Table input: divide the features by S before normalising, e.g. 255 for 8-bit pixels "
          + "(default: 1).")
  Double featureScale;

  @Option(names = "--" + MODEL, paramLabel = "NAME|FILE",
      description = "${bundle:models} (default: the paper's model for the dataset: mnist mlp-small, fashion-mnist "
          + "mlp, cifar10 vgg19-bn), or a network of your own: a DL4J MultiLayerConfiguration JSON file or a Keras 2 "
          + "Sequential .h5 file (any Hadoop FileSystem URI), a softmax classifier for the data's image shape and "
          + "classes.")
  String model;

  @Option(names = "--" + MODE, paramLabel = "MODE", converter = ModeConverter.class,
      description = "bidirectional (compress up and down), unidirectional (compress up only) or dense "
          + "(plain SGD) (default: bidirectional).")
  Mode mode = Mode.BIDIRECTIONAL;

  @Option(names = "--" + WORKERS, paramLabel = "P",
      description = "Number of workers P, the algorithm's P: each has its own shard, residual and compressor "
          + "(default: 4; the counterexample's number of centres, which it must equal).")
  Integer workers;

  @Option(names = "--" + TASKS, paramLabel = "S",
      description = "Spark tasks per round: the P workers are packed into S tasks, each running its workers one "
          + "after the other on one model replica; results are identical for every S (default: 0 = min(P, the "
          + "cluster's task slots)).")
  int tasks = DEFAULTS.tasks();

  @Option(names = "--" + UPLINK, paramLabel = "SPEC", converter = CompressorConverter.class,
      description = "Worker compressor: ${bundle:compressors} (default: topk; none in dense mode).")
  CompressorSpec uplink = CompressorSpec.parse("topk");

  @Option(names = "--" + DOWNLINK, paramLabel = "SPEC", converter = CompressorConverter.class,
      description = "Server compressor, same choices as --uplink; used in bidirectional mode (default: topk).")
  CompressorSpec downlink = CompressorSpec.parse("topk");

  @Option(names = "--" + DENSITY_UP, paramLabel = "RHO",
      description = "Uplink density in (0, 1]: k = rho*d (default: ${DEFAULT-VALUE}).")
  double densityUp = DEFAULTS.densityUp();

  @Option(names = "--" + DENSITY_DOWN, paramLabel = "RHO",
      description = "Downlink density in (0, 1] (default: ${DEFAULT-VALUE}).")
  double densityDown = DEFAULTS.densityDown();

  @Option(names = "--" + K_UP, paramLabel = "K",
      description = "Uplink k directly, instead of --density-up (not in dense mode).")
  Integer kUp;

  @Option(names = "--" + K_DOWN, paramLabel = "K",
      description = "Downlink k directly, instead of --density-down (bidirectional mode only).")
  Integer kDown;

  @Option(names = "--" + K_ROUNDING, paramLabel = "RULE", converter = KRoundingConverter.class,
      description = "How a density becomes k: floor (k = max(1, floor(rho*d))) or reference (Zou's scripts: the "
          + "worker keeps n - int((1 - rho)*n) ~ ceil(rho*n) entries, the server's topk keeps those strictly above "
          + "the k-th largest) (default: floor).")
  KRounding kRounding = KRounding.FLOOR;

  @Option(names = "--" + VALUES_UP, paramLabel = "FORMAT", converter = ValueFormatConverter.class,
      description = "Format of the values workers send: fp32, fp16, bf16 or int8 (one byte a value and a "
          + "per-message scale max|v|/127). Workers select on the exact c and their residual keeps what rounding "
          + "loses; --uplink-feedback ef14 or none only (default: fp32).")
  ValueFormat valuesUp = ValueFormat.FP32;

  @Option(names = "--" + VALUES_DOWN, paramLabel = "FORMAT", converter = ValueFormatConverter.class,
      description = "Format of the values the server sends, as --values-up; its residual keeps what rounding "
          + "loses; --downlink-scheme ef only (default: fp32).")
  ValueFormat valuesDown = ValueFormat.FP32;

  @Option(names = "--" + LR, paramLabel = "LR",
      description = "Learning rate, applied by workers before compression: c = e + lr*g (default: 0.1; 0.01 for "
          + "the counterexample).")
  Double lr;

  @Option(names = "--" + LR_DECAY, paramLabel = "F",
      description = "Multiply the learning rate by F after every epoch (default: ${DEFAULT-VALUE} = constant).")
  double lrDecay = DEFAULTS.lrDecay();

  @Option(names = "--" + UPLINK_FEEDBACK, paramLabel = "SCHEME",
      description = "What workers remember: ef14 (error feedback, c = e + lr*g; default), ef21 (gradient estimate "
          + "g_i, send C(grad - g_i); the server steps with lr * mean g_i), artemis (the same memory moved by "
          + "alpha_up * C(grad - g_i), as in Artemis and MCM) or none (plain compression).")
  String uplinkFeedback = "ef14";

  @Option(names = "--" + UP_MEMORY_RATE, paramLabel = "ALPHA",
      description = "alpha_up in (0, 1] of --uplink-feedback artemis (default: 1/(2(omega + 1)) of an unbiased "
          + "--uplink, randomk:scaled or natural; required for the others).")
  Double upMemoryRate;

  @Option(names = "--" + DOWN_MEMORY_RATE, paramLabel = "ALPHA",
      description = "alpha_down in (0, 1] of --downlink-scheme mcm (default: 1/(2(omega + 1)) of an unbiased "
          + "--downlink; required for the others; 1 = ef21-p).")
  Double downMemoryRate;

  @Option(names = "--" + DOWNLINK_SCHEME, paramLabel = "SCHEME",
      description = "What the server broadcasts: ef (server error feedback; bidirectional default), ef21-p "
          + "(EF21-P: C(x - w) of the exact model x and the workers' w), mcm (MCM: C(x - H) of the central model x "
          + "and a memory H; workers compute at H + C(x - H)); bidirectional only; or average "
          + "(unidirectional and dense). Default: the mode's.")
  String downlinkScheme;

  @Option(names = "--" + MOMENTUM, paramLabel = "MU",
      description = "Worker-side momentum in [0, 1): m = mu*m + g, then c = e + lr*m (default: ${DEFAULT-VALUE}).")
  double momentum = DEFAULTS.momentum();

  @Option(names = "--" + BATCH_SIZE, paramLabel = "B", description = "Minibatch size per worker (default: ${DEFAULT-VALUE}).")
  int batchSize = DEFAULTS.batchSize();

  @Option(names = "--" + EPOCHS, paramLabel = "N",
      description = "Epochs; one epoch = min over workers of floor(|D_i|/B) rounds (default: ${DEFAULT-VALUE}).")
  int epochs = DEFAULTS.epochs();

  @Option(names = "--" + MAX_ITERATIONS, paramLabel = "N",
      description = "Stop after N rounds even within an epoch; 0 = no limit (default: ${DEFAULT-VALUE}).")
  long maxIterations = DEFAULTS.maxIterations();

  @Option(names = "--" + SPLIT, paramLabel = "KIND",
      description = "iid (equal random split) or non-iid (sorted labels, 2 shards per worker) (default: ${DEFAULT-VALUE}).")
  String split = "iid";

  @Option(names = "--" + SEED, paramLabel = "N",
      description = "Seed of the model initialisation, split, minibatches and compressors (default: ${DEFAULT-VALUE}).")
  long seed = DEFAULTS.seed();

  @Option(names = "--" + X0, paramLabel = "FILE",
      description = "Counterexample only: read x0 from FILE (any Hadoop FileSystem URI): a .npy 1-D float32/float64 "
          + "array or text, numbers separated by whitespace, '#' comments; exactly d values (default: generated, "
          + "start + noise*N(0,1) from java.util.Random(--seed)).")
  String x0;

  @Option(names = "--" + OUTPUT, paramLabel = "DIR", description = "Output directory URI (default: runs/<UTC timestamp>).")
  String output;

  @Option(names = "--" + OVERWRITE, description = "Replace the run in the output directory, finished or not: the old "
      + "run's files (checkpoints and logs included) are removed first. A directory holding anything bitopk did "
      + "not write is never replaced.")
  boolean overwrite;

  @Option(names = "--" + EVAL_EVERY, paramLabel = "N",
      description = "Evaluate on the test set every N epochs; the last epoch always (default: ${DEFAULT-VALUE}). With "
          + "1, a run shorter than 5 epochs also evaluates after every tenth of its rounds (when that is 10 rounds "
          + "or more), so that its report draws accuracy as a curve; 2 or more turns that off.")
  int evalEvery = DEFAULTS.evalEvery();

  @Option(names = "--" + CONSISTENCY_CHECK_EVERY, paramLabel = "N",
      description = "Every N iterations, check that every replica equals the driver's model bit for bit and fail "
          + "if not; 0 = never (default: ${DEFAULT-VALUE}).")
  int consistencyCheckEvery = DEFAULTS.consistencyCheckEvery();

  @Option(names = "--" + SNAPSHOT_EVERY, paramLabel = "N",
      description = "Broadcast a dense snapshot of the model every N iterations, for replicas that fell behind "
          + "(new or restarted executors) (default: ${DEFAULT-VALUE}).")
  int snapshotEvery = DEFAULTS.snapshotEvery();

  @Option(names = "--" + UPDATE_WINDOW, paramLabel = "N",
      description = "Keep the broadcasts of the last N sparse updates alive, so a replica up to N iterations behind "
          + "catches up without the snapshot; must be >= --snapshot-every (default: ${DEFAULT-VALUE}).")
  int updateWindow = DEFAULTS.updateWindow();

  @Option(names = "--" + XI, description = "Also compute xi = |TopK(sum c_i) - sum TopK(c_i)| / |sum lr*g_i| "
      + "(ships dense vectors: slow, for diagnostics).")
  boolean xi;

  @Option(names = "--" + CAPTURE_VECTORS, paramLabel = "ROUNDS",
      description = "Write every worker's compensated vector c_i = e_i + lr*g_i (what its uplink compressor is "
          + "applied to) at these 1-based rounds, e.g. 1,100,1000, to <output>/captures/round-NNNNNN/"
          + "worker-NNNN.bin (format in job/docs/compressor-evaluation.md); read them with evaluate-compressors. "
          + "Rounds must be positive, distinct and within the run.")
  String captureVectors;

  @Option(names = "--" + CHECKPOINT_EVERY, paramLabel = "N",
      description = "Every N iterations, write a checkpoint (model, server and worker residuals, counters) to "
          + "<output>/checkpoints, atomically; the newest two are kept; 0 = never (default: ${DEFAULT-VALUE}).")
  int checkpointEvery = DEFAULTS.checkpointEvery();

  @Option(names = "--" + RESUME, paramLabel = "DIR",
      description = "Continue the unfinished run in DIR from its newest intact checkpoint, with the settings of "
          + "DIR/config.json (flags given here override them; the ones that change the arithmetic must match). "
          + "In deterministic settings the result equals the uninterrupted run bit for bit.")
  String resume;

  @Option(names = "--" + QUIET, description = "No progress bar (it is also off when stderr is not a terminal).")
  boolean quiet;

  @Option(names = "--" + VERBOSE, description = "Spark's, DL4J's and Hadoop's log messages and the full trace of a "
      + "failure on the console (default: only in <output>/logs/driver-<time>.log; the console gets one line).")
  protected boolean verbose;

  /**
   * The run's settings from the parsed flags.
   *
   * @param hadoop the file systems a model file of {@code --model} is read with (those Spark will have)
   * @throws IllegalArgumentException naming the flag whose value is refused
   */
  public TrainingConfig toConfig(Configuration hadoop) {
    refuseSettingsThatDoNotApply();
    if (!split.equals("iid") && !split.equals("non-iid")) {
      throw new IllegalArgumentException(flag(SPLIT) + ": expected iid or non-iid, got '" + split + "'");
    }
    TableInput tableInput = tableInput();
    TrainingConfigBuilder b = TrainingConfig.builder()
        .dataset(dataset != null ? dataset : "fashion-mnist").data(tableInput == null ? data : null)
        .table(tableInput).model(model == null ? null : ModelSpec.parse(model, hadoop))
        .mode(mode).tasks(tasks).uplink(uplink).downlink(downlink)
        .densityUp(densityUp).densityDown(densityDown).kUp(kUp).kDown(kDown).x0(x0).kRounding(kRounding)
        .valuesUp(valuesUp).valuesDown(valuesDown)
        .lrDecay(lrDecay).momentum(momentum)
        .batchSize(batchSize).epochs(epochs).maxIterations(maxIterations).nonIid(split.equals("non-iid"))
        .seed(seed).output(output).overwrite(overwrite).evalEvery(evalEvery)
        .consistencyCheckEvery(consistencyCheckEvery).snapshotEvery(snapshotEvery).updateWindow(updateWindow)
        .xi(xi).captureVectors(captureVectors).quiet(quiet).checkpointEvery(checkpointEvery)
        .uplinkFeedback(org.bitopk.job.engine.UplinkFeedback.parse(uplinkFeedback))
        .downlinkScheme(downlinkScheme == null ? null : DownlinkScheme.parse(downlinkScheme))
        .upMemoryRate(upMemoryRate).downMemoryRate(downMemoryRate);
    if (resume != null) {
      if (resume.isBlank()) {
        throw new IllegalArgumentException(flag(RESUME) + ": expected the directory of the run to continue, got ''");
      }
      if (overwrite) {
        throw new IllegalArgumentException(flag(OVERWRITE) + " cannot be combined with --resume: a resume "
            + "continues the run in " + resume + ", --overwrite would remove it");
      }
      if (output != null && !output.equals(resume)) {
        throw new IllegalArgumentException(flag(RESUME) + ": continues the run in " + resume + " in place; --output "
            + output + " cannot differ");
      }
      b.output(resume).overwrite(false).resume(true);
    }
    if (workers != null) {
      b.workers(workers);
    }
    if (master != null) {
      b.master(master);
    }
    if (lr != null) {
      b.learningRate(lr);
    }
    return b.build();
  }

  /** The table input the flags describe, or null when they name a data set. */
  private TableInput tableInput() {
    String[] prefixed = TableInput.splitPrefixed(data);
    String format = dataFormat;
    String path = data;
    if (prefixed != null) {
      if (dataFormat != null && !dataFormat.equalsIgnoreCase(prefixed[0])) {
        throw new IllegalArgumentException(flag(DATA_FORMAT) + " " + dataFormat + " contradicts --data " + data);
      }
      format = prefixed[0];
      path = prefixed[1];
    }
    if (format == null && table == null) {
      for (String[] given : new String[][] {{flag(FEATURES), features}, {flag(LABEL), label},
          {flag(INPUT_SHAPE), inputShape}, {flag(TEST_DATA), testData}, {flag(NORMALIZE), normalize}}) {
        if (given[1] != null) {
          throw new IllegalArgumentException(given[0] + ": only for table input (--data-format or --table)");
        }
      }
      if (testFraction != null || featureScale != null) {
        throw new IllegalArgumentException((testFraction != null ? flag(TEST_FRACTION) : flag(FEATURE_SCALE))
            + ": only for table input (--data-format or --table)");
      }
      return null;
    }
    if (dataset != null) {
      throw new IllegalArgumentException(flag(DATASET) + ": names a built-in data set; not with --data-format/--table");
    }
    TableInput.Builder t = TableInput.builder();
    if (table != null) {
      if (format != null || data != null) {
        throw new IllegalArgumentException(flag(TABLE) + ": reads a catalog table; --data/--data-format cannot be "
            + "given as well");
      }
      t.table(table);
    } else {
      t.path(format, path);
    }
    return t.features(features).label(label).inputShape(inputShape).testData(testData).testFraction(testFraction)
        .normalize(normalize).featureScale(featureScale == null ? 1 : featureScale).build();
  }

  /**
   * Settings that do not apply to the chosen mode or problem are refused, not silently ignored: a user who
   * sets them expects an effect. A mode's compressor and density may still be given with the value the mode
   * implies ({@code none}, 1.0): that is what a run's own config.json records, and it states nothing
   * contrary. Everything else, the default value included ({@code --mode dense --uplink topk}), is refused.
   */
  private void refuseSettingsThatDoNotApply() {
    boolean counterexample = org.bitopk.job.problem.quadratic.CounterexampleSetting.names(dataset);
    if (mode == Mode.DENSE) {
      String why = "does not apply to --mode dense, which sends every gradient entry uncompressed both ways";
      refuseUnless(UPLINK, uplink.toString().equals("none"), why);
      refuseUnless(DOWNLINK, downlink.toString().equals("none"), why);
      refuseUnless(DENSITY_UP, densityUp == 1.0, why);
      refuseUnless(DENSITY_DOWN, densityDown == 1.0, why);
      refuseUnless(K_ROUNDING, false, why + " (there is no k to round)");
      refuseUnless(K_UP, false, why);
      refuseUnless(K_DOWN, false, why);
    } else if (mode == Mode.UNIDIRECTIONAL) {
      String why = "does not apply to --mode unidirectional, whose server sends the average uncompressed";
      refuseUnless(DOWNLINK, downlink.toString().equals("none"), why);
      refuseUnless(DENSITY_DOWN, densityDown == 1.0, why);
      refuseUnless(K_DOWN, false, why);
    }
    if (kUp != null) {
      refuseUnless(DENSITY_UP, false, flag(K_UP) + " " + kUp + " gives the uplink k already; give one of the two");
    }
    if (kDown != null) {
      refuseUnless(DENSITY_DOWN, false, flag(K_DOWN) + " " + kDown + " gives the downlink k already; give one of "
          + "the two");
    }
    if (!counterexample) {
      refuseUnless(X0, false, "only for --dataset counterexample[:options], whose starting point it is");
    }
    if (counterexample) {
      String why = "does not apply to --dataset counterexample (quadratics, one worker per centre, full gradients, "
          + "no data files, no network)";
      for (String key : List.of(MODEL, DATA, SPLIT, BATCH_SIZE)) {
        refuseUnless(key, false, why);
      }
    } else if (org.bitopk.job.problem.synthetic.SyntheticGradientSetting.names(dataset)) {
      String why = "does not apply to --dataset " + dataset + " (a benchmark problem: generated gradients, one "
          + "round per epoch, no data files, no network)";
      for (String key : List.of(MODEL, DATA, SPLIT, BATCH_SIZE)) {
        refuseUnless(key, false, why);
      }
    } else if (dataset != null && (dataset.equals("synthetic") || dataset.startsWith("synthetic:"))) {
      refuseUnless(DATA, false, "does not apply to --dataset " + dataset + ", which is generated, not read "
          + "(its options go into the dataset text, e.g. synthetic:n=2000,shape=1x28x28)");
    }
  }

  /** Refuses flag {@code key} when it was given (on the command line or in a config file) and {@code fine} is false. */
  private void refuseUnless(String key, boolean fine, String why) {
    if (fine || spec == null) {
      return;
    }
    String flag = flag(key);
    boolean onCommandLine = spec.commandLine().getParseResult() != null
        && spec.commandLine().getParseResult().hasMatchedOption(flag);
    ConfigFile file = spec.defaultValueProvider() instanceof ConfigFile c ? c : null;
    boolean inFile = file != null && file.sets(key);
    if (!onCommandLine && !inFile) {
      return;
    }
    Object given = spec.findOption(flag).getValue();
    String value = given instanceof ModelSpec m ? m.displayName()
        : given instanceof KRounding k ? k.text() : given instanceof ValueFormat f ? f.text() : String.valueOf(given);
    throw new IllegalArgumentException(flag + " " + value + (onCommandLine ? "" : " (from " + file.uri() + ")")
        + ": " + why + "; leave it out");
  }

  static final class ModeConverter implements CommandLine.ITypeConverter<Mode> {
    @Override
    public Mode convert(String value) {
      return parsed(value, Mode::parse);
    }
  }

  static final class ValueFormatConverter implements CommandLine.ITypeConverter<ValueFormat> {
    @Override
    public ValueFormat convert(String value) {
      return parsed(value, ValueFormat::parse);
    }
  }

  static final class KRoundingConverter implements CommandLine.ITypeConverter<KRounding> {
    @Override
    public KRounding convert(String value) {
      return parsed(value, KRounding::parse);
    }
  }

  static final class CompressorConverter implements CommandLine.ITypeConverter<CompressorSpec> {
    @Override
    public CompressorSpec convert(String value) {
      return parsed(value, CompressorSpec::parse);
    }
  }

  /** A choice's own parser, its refusal turned into picocli's, so the message names the flag. */
  private static <T> T parsed(String value, java.util.function.Function<String, T> parse) {
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}
