package org.bitopk.job.run;

import static org.bitopk.job.config.TrainFlags.BATCH_SIZE;
import static org.bitopk.job.config.TrainFlags.CAPTURE_VECTORS;
import static org.bitopk.job.config.TrainFlags.MODEL;
import static org.bitopk.job.config.TrainFlags.OUTPUT;
import static org.bitopk.job.config.TrainFlags.RESUME;
import static org.bitopk.job.config.TrainFlags.WORKERS;
import static org.bitopk.job.config.TrainFlags.X0;
import static org.bitopk.job.config.TrainFlags.flag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.BadInputException;
import org.bitopk.job.checkpoint.Checkpoint;
import org.bitopk.job.checkpoint.CheckpointStore;
import org.bitopk.job.checkpoint.ConfigDigest;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.config.ConfigFile;
import org.bitopk.job.config.TableInput;
import org.bitopk.job.config.TrainFlags;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.output.DirectoryClaim;
import org.bitopk.job.output.OutputDirectoryException;
import org.bitopk.job.output.RunDirectory;
import org.bitopk.job.output.RunDirectoryCheck;
import org.bitopk.job.output.RunLease;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.TableProblem;
import org.bitopk.job.problem.quadratic.CounterexampleProblem;
import org.bitopk.job.problem.quadratic.CounterexampleSetting;
import org.bitopk.job.problem.synthetic.SyntheticGradientProblem;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;
import org.bitopk.job.problem.quadratic.InitialPointFile;
import org.bitopk.job.table.InputNames;
import org.bitopk.job.table.TableData;
import org.bitopk.job.table.TableSource;

/**
 * A training run checked completely before Spark starts and before anything is written: the output directory
 * may be used as asked (see {@link RunDirectory#requireUsable}), a resume has an intact checkpoint of its own
 * run with the same arithmetic, the data are present, readable and well-formed (they are loaded here, on the
 * driver, where they are loaded anyway), the model fits the images, and the workers and the batch size fit the
 * number of examples. Every problem is a {@link BadInputException} (or {@link OutputDirectoryException}) with
 * one message; a prepared run then only {@link #claim}s its directory and trains.
 */
public final class PreparedRun {
  /** The newest checkpoints kept; two, so a damaged newest one still leaves one to resume from. */
  static final int CHECKPOINTS_KEPT = 2;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private final TrainingConfig config;
  private final FileSystem fs;
  private final Path output;
  private final RunDirectoryCheck.State state;
  private final String runId;
  /** The checkpoint a resume continues from. */
  private final Optional<Checkpoint> checkpoint;
  /** The run's config.json as a resume found it. */
  private final Optional<JsonNode> previousConfig;
  private final RunInput input;
  /** Examples per worker shard; none yet for a table not read. */
  private final int[] shardSizes;
  private final int iterationsPerEpoch;
  private final long totalIterations;

  private PreparedRun(TrainingConfig config, FileSystem fs, Path output, RunDirectoryCheck.State state, String runId,
      Optional<Checkpoint> checkpoint, Optional<JsonNode> previousConfig, RunInput input, int[] shardSizes,
      int iterationsPerEpoch) {
    this.config = config;
    this.fs = fs;
    this.output = output;
    this.state = state;
    this.runId = runId;
    this.checkpoint = checkpoint;
    this.previousConfig = previousConfig;
    this.input = input;
    this.shardSizes = shardSizes;
    this.iterationsPerEpoch = iterationsPerEpoch;
    this.totalIterations = RunPlans.totalRounds(config, iterationsPerEpoch);
  }

  /** This run with its input and shards replaced (a table once read). */
  private PreparedRun with(RunInput newInput, int[] sizes, int perEpoch) {
    return new PreparedRun(config, fs, output, state, runId, checkpoint, previousConfig, newInput, sizes, perEpoch);
  }

  /** The default output directory for a run started now: runs/&lt;UTC timestamp&gt;. */
  public static String defaultOutput() {
    return "runs/" + STAMP.format(Instant.now());
  }

  /**
   * Checks everything that can be checked without Spark and without writing.
   *
   * @param conf the Hadoop configuration Spark will use (see {@code SparkSetup.hadoopConfiguration})
   * @throws IllegalArgumentException ({@link BadInputException}, {@link OutputDirectoryException}) naming the
   *     flag, file or directory and what was expected
   */
  public static PreparedRun check(TrainingConfig config, Configuration conf) {
    String uri = config.output().orElseGet(PreparedRun::defaultOutput);
    String flag = config.resume() ? flag(RESUME) : flag(OUTPUT);
    Path path = new Path(uri);
    FileSystem fs = HadoopLocations.fileSystem(flag, uri, path, conf);
    path = HadoopLocations.qualified(flag, uri, fs, path);
    TrainingConfig resolved = config.toBuilder().output(path.toString()).build();
    RunDirectoryCheck.State state;
    try {
      state = RunDirectoryCheck.requireUsable(fs, path, config.overwrite(), config.resume());
    } catch (IOException e) {
      throw new OutputDirectoryException(flag + " " + path + ": cannot look into the directory: " + e.getMessage(), e);
    }

    Optional<Checkpoint> checkpoint = Optional.empty();
    Optional<JsonNode> previous = Optional.empty();
    String runId;
    if (config.resume()) {
      JsonNode found = readConfig(fs, path);
      previous = Optional.of(found);
      runId = found.path("run").asText("");
      if (runId.isEmpty()) {
        throw new BadInputException(flag(RESUME) + ": " + new Path(path, RunDirectory.CONFIG) + " names no run "
            + "('run' key)");
      }
      checkpoint = Optional.of(ResumeCheckpoint.latest(CheckpointStore.in(fs, path, CHECKPOINTS_KEPT), runId,
          ConfigDigest.of(FlagValues.of(resolved))));
      InputFingerprint.requireUnchanged(found, new Path(path, RunDirectory.CONFIG),
          InputFingerprint.of(resolved, conf));
    } else {
      runId = path.getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    if (resolved.hasNoNetwork()) {
      int[] ones = new int[resolved.workers()];
      Arrays.fill(ones, 1);
      Optional<float[]> start = resolved.x0().map(x0 -> readStart(resolved, x0, conf));
      return finish(new PreparedRun(resolved, fs, path, state, runId, checkpoint, previous,
          new RunInput.Generated(start), ones, 1));
    }
    if (resolved.table().isPresent()) {
      // Tables are read by the executors: their checks run in withData, once Spark runs, before training.
      Optional<TableLoader> loader = resolved.table().get().isDataFrame() ? Optional.empty()
          : Optional.of(PreparedRun::loadTable);
      return new PreparedRun(resolved, fs, path, state, runId, checkpoint, previous,
          new RunInput.UnreadTable(loader), new int[0], 1);
    }
    TrainTest data = ImageData.load(resolved, conf);
    LabeledImages train = data.train();
    requireModelFits(resolved, train.channels(), train.height(), train.width(), train.numClasses(),
        "images of " + resolved.dataset(), "choose another --model (mlp and mlp-small take any shape)");
    int[] sizes;
    try {
      sizes = ShardSplitter.shardSizes(train.count(), resolved.workers(), resolved.nonIid());
    } catch (IllegalArgumentException e) {
      throw new BadInputException(flag(WORKERS) + " " + resolved.workers() + ": too many for the " + train.count()
          + " training examples of " + resolved.dataset() + " (" + e.getMessage() + ")", e);
    }
    int smallest = requireBatchFits(resolved, sizes, train.count() + " training examples");
    return finish(new PreparedRun(resolved, fs, path, state, runId, checkpoint, previous, new RunInput.Files(data),
        sizes, smallest / resolved.batchSize()));
  }

  private static PreparedRun finish(PreparedRun run) {
    java.util.List<Integer> captures = run.config.captureVectors();
    if (!captures.isEmpty() && captures.get(captures.size() - 1) > run.totalIterations) {
      throw new BadInputException(flag(CAPTURE_VECTORS) + ": round " + captures.get(captures.size() - 1) + " is beyond "
          + "this run's " + run.totalIterations + " rounds (raise --epochs or --max-iterations, or leave the "
          + "round out)");
    }
    long checkpointIteration = run.checkpoint.map(Checkpoint::iteration).orElse(0);
    if (checkpointIteration > run.totalIterations) {
      throw new BadInputException(flag(RESUME) + ": the checkpoint is at iteration " + checkpointIteration
          + ", beyond this run's " + run.totalIterations + " iterations (raise --epochs or --max-iterations)");
    }
    return run;
  }

  /**
   * Takes the output directory: its lease, then, under the lease, what {@link DirectoryClaim} does. Refused, it
   * first releases the data read for the run ({@link #discardData}): the run does not go on.
   *
   * @param warnings receives the one-line warning when a stale lease is taken over
   */
  public RunLease claim(Consumer<String> warnings) {
    try {
      return DirectoryClaim.take(fs, output, runId, state, config.overwrite(), config.resume(), warnings);
    } catch (RuntimeException e) {
      discardData();
      throw e;
    }
  }

  /** Releases a table read by {@link #withData} (its cache and broadcasts) when the run does not go on. */
  public void discardData() {
    if (input instanceof RunInput.ReadTable read) {
      read.table().close();
    }
  }

  /** The same run, reading its table input with {@code loader} (Spark ML's fit hands its DataFrame so). */
  public PreparedRun withTableLoader(TableLoader loader) {
    if (config.table().isEmpty()) {
      throw new IllegalStateException("not a table input");
    }
    return with(new RunInput.UnreadTable(Optional.of(loader)), new int[0], 1);
  }

  /** True once the data are read (always, but for a table input before {@link #withData}). */
  public boolean dataRead() {
    return !(input instanceof RunInput.UnreadTable);
  }

  /**
   * For a table input: reads and splits it on the executors and checks what {@link #check} checks for files
   * (the model fits the images, the batch fits the shards, a checkpoint fits the run); the table's cache and
   * broadcasts then belong to the returned run's problem. Other inputs: this run.
   *
   * <p>Called before the output directory is claimed, so that a table that cannot be used leaves nothing behind.
   *
   * @throws IllegalArgumentException in one line starting with the flag, for bad tables and settings
   */
  public PreparedRun withData(JavaSparkContext sc) {
    if (!(input instanceof RunInput.UnreadTable unread)) {
      return this;
    }
    TableInput input = config.table().orElseThrow();
    TableLoader loader = unread.loader().orElseThrow(
        () -> new IllegalStateException("no loader for the table input " + input.format().orElse("")));
    TableData loaded;
    try {
      loaded = loader.load(sc, config);
    } catch (IllegalArgumentException e) {
      // the command line's line starts with the flag; Spark ML's messages name their parameters already
      throw input.isDataFrame() ? e : input.namingTheFlag(e);
    }
    try {
      requireModelFits(config, loaded.channels(), loaded.height(), loaded.width(), loaded.labels().numClasses(),
          "input of the table", "give its image shape with --input-shape, or choose mlp or mlp-small (they take "
          + "any shape)");
      if (previousConfig.isPresent() && !input.isDataFrame()) {
        SameTableCheck.require(previousConfig.get(), new Path(output, RunDirectory.CONFIG), input, loaded);
      }
      int[] sizes = loaded.shardSizes();
      int smallest = requireBatchFits(config, sizes, loaded.trainRows() + " training rows");
      return finish(with(new RunInput.ReadTable(loaded), sizes, smallest / config.batchSize()));
    } catch (RuntimeException e) {
      loaded.close();
      throw e;
    }
  }

  /**
   * The model takes the input's shape and classes: a built-in architecture by its rule, one's own network by
   * being built. {@code input} says what was read ("images of fashion-mnist"), {@code advice} what to do instead.
   */
  private static void requireModelFits(TrainingConfig config, int channels, int height, int width, int classes,
      String input, String advice) {
    try {
      if (config.model() instanceof ModelArchitecture architecture) {
        architecture.checkFits(channels, height, width, classes);
      } else {
        config.model().build(config.seed(), channels, height, width, classes);
      }
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(flag(MODEL))) {
        throw new BadInputException(e.getMessage(), e);   // one's own network: its validation names the file
      }
      throw new BadInputException(flag(MODEL) + " " + config.model().displayName() + " does not fit the "
          + channels + "x" + height + "x" + width + " " + input + ": " + e.getMessage() + "; " + advice, e);
    }
  }

  /** The smallest worker shard, which must hold a batch; {@code examples} counts them ("60000 training rows"). */
  private static int requireBatchFits(TrainingConfig config, int[] sizes, String examples) {
    int smallest = Arrays.stream(sizes).min().orElse(0);
    if (smallest < config.batchSize()) {
      throw new BadInputException(flag(BATCH_SIZE) + " " + config.batchSize() + " is larger than the smallest worker "
          + "shard (" + smallest + " examples: " + examples + " over " + config.workers() + " workers"
          + (config.nonIid() ? ", non-iid" : "") + "); lower --batch-size or --workers");
    }
    return smallest;
  }

  /** The command line's table input: a path read with a data source, or a catalog table. */
  private static TableData loadTable(JavaSparkContext sc, TrainingConfig config) {
    SparkSession spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
    TableInput input = config.table().orElseThrow();
    TableSource train = input.train();
    TableData.Builder table = TableData.builder().names(InputNames.COMMAND_LINE)
        .train(train.read(spark), train.description()).label(input.label()).normalization(input.normalization());
    input.features().ifPresent(table::features);
    input.inputShape().ifPresent(table::inputShape);
    input.test().ifPresentOrElse(test -> table.test(test.read(spark), test.description()),
        () -> table.testFraction(input.testFraction()));
    return table.workers(config.workers()).nonIid(config.nonIid()).seed(config.seed()).build();
  }

  /** x₀ from the file {@code x0} of --x0: present, readable, d finite numbers (text or .npy). */
  private static float[] readStart(TrainingConfig config, String x0, Configuration conf) {
    int d = config.counterexample().orElseThrow().dimension();
    Path file = new Path(x0);
    FileSystem xfs = HadoopLocations.fileSystem(flag(X0), x0, file, conf);
    try {
      if (!xfs.getFileStatus(file).isFile()) {
        throw new BadInputException(flag(X0) + " " + x0 + ": is a directory; expected a text or .npy "
            + "file of d = " + d + " numbers");
      }
    } catch (FileNotFoundException missing) {
      throw new BadInputException(flag(X0) + " " + x0 + ": no such file; expected a text or .npy file of d = "
          + d + " numbers", missing);
    } catch (IOException e) {
      throw new BadInputException(flag(X0) + " " + x0 + ": cannot access it: " + e.getMessage(), e);
    }
    try {
      return InitialPointFile.read(xfs, file, d, flag(X0));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }

  /** The problem on the workers: shards (from the data loaded by {@link #check}) as a cached RDD. */
  TrainingProblem<?> problem(JavaSparkContext sc) {
    if (input instanceof RunInput.Generated generated) {
      if (config.isCounterexample()) {
        CounterexampleSetting setting = config.counterexample().orElseThrow();
        return generated.start()
            .map(start -> new CounterexampleProblem(sc, setting, start, config.x0().orElseThrow()))
            .orElseGet(() -> new CounterexampleProblem(sc, setting, config.seed()));
      }
      SyntheticGradientSetting synthetic = config.syntheticGradients().orElseThrow();
      return new SyntheticGradientProblem(sc, synthetic, config.workers(), RunPlans.uplinkK(config,
          synthetic.dimension()), config.seed());
    }
    if (input instanceof RunInput.ReadTable read) {
      return TableProblem.create(sc, read.table(), config.model(), config.batchSize(), config.seed(),
          InputNames.COMMAND_LINE);
    }
    if (input instanceof RunInput.Files files) {
      return ImageProblem.readByExecutors(sc, config.dataset(), config.data(), files.data(),
          config.model(), config.workers(), config.nonIid(), config.batchSize(), config.seed());
    }
    throw new IllegalStateException("the table input is not read yet (withData)");
  }

  /** The settings, with the output directory resolved (qualified). */
  public TrainingConfig config() {
    return config;
  }

  public FileSystem fileSystem() {
    return fs;
  }

  /** The output directory, qualified. */
  public Path output() {
    return output;
  }

  public String runId() {
    return runId;
  }

  /** The checkpoint a resume continues from; empty for a new run. */
  public Optional<Checkpoint> checkpoint() {
    return checkpoint;
  }

  /** The run's config.json as a resume found it; empty for a new run. */
  Optional<JsonNode> previousConfig() {
    return previousConfig;
  }

  /** Training examples read, or -1 for the counterexample and the synthetic gradients (no examples). */
  public int trainExamples() {
    if (input instanceof RunInput.ReadTable read) {
      return (int) read.table().trainRows();
    }
    return input instanceof RunInput.Files files ? files.data().train().count() : -1;
  }

  /** Test examples read, or -1 for the counterexample and the synthetic gradients. */
  public int testExamples() {
    if (input instanceof RunInput.ReadTable read) {
      return (int) read.table().testRows();
    }
    return input instanceof RunInput.Files files ? files.data().test().count() : -1;
  }

  /**
   * Examples per worker shard (ones for the counterexample's quadratics and the synthetic gradients; none for a
   * table not read yet).
   */
  public int[] shardSizes() {
    return shardSizes.clone();
  }

  public int iterationsPerEpoch() {
    return iterationsPerEpoch;
  }

  public long totalIterations() {
    return totalIterations;
  }

  /**
   * Where a run stopped by a signal stands, for the interruption line, from what its directory holds now:
   * the checkpoints kept and how to continue, or that nothing can be resumed, or that nothing was recorded.
   */
  public String interruptedStatus() {
    try {
      RunDirectoryCheck.State now = RunDirectoryCheck.inspect(fs, output);
      if (now.kind() == RunDirectoryCheck.Kind.EMPTY || now.kind() == RunDirectoryCheck.Kind.ABSENT) {
        return "; no round of the run was recorded, " + output + " holds nothing of it: run the same command again";
      }
      CheckpointStore store = CheckpointStore.in(fs, output, CHECKPOINTS_KEPT);
      Optional<Checkpoint> newest = store.latest(runId);
      if (newest.isPresent()) {
        return "; the unfinished run in " + output + " keeps " + store.listNewestFirst().size() + " checkpoint(s), "
            + "the newest of iteration " + newest.get().iteration() + ": continue it with --resume " + output;
      }
    } catch (IOException | RuntimeException e) {
      // fall through: say what is known
    }
    return "; the unfinished run in " + output + " has no checkpoint (--checkpoint-every N makes runs resumable): "
        + "start it again with --overwrite";
  }

  private static JsonNode readConfig(FileSystem fs, Path dir) {
    Path file = new Path(dir, RunDirectory.CONFIG);
    try (InputStream in = ConfigFile.openEdited(fs, file)) {
      JsonNode node = JSON.readTree(in);
      if (node == null || !node.isObject()) {
        throw new BadInputException(flag(RESUME) + ": " + file + " is not a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw new BadInputException(flag(RESUME) + ": cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
