package org.bitopk.lab.baseline;

import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.ValueFormat;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.config.Mode;
import org.bitopk.job.output.AtomicFiles;
import org.bitopk.job.output.MachineEnvironment;
import org.bitopk.job.spark.SparkSetup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code time-to-accuracy}: trains the same MLP on the same data with P workers of the same minibatch and learning
 * rate, one system after another on one SparkContext — bitopk in its modes, DL4J's ParameterAveragingTrainingMaster
 * at several averaging frequencies, DL4J's SharedTrainingMaster, a single-JVM DL4J fit — evaluating each every few
 * dozen rounds, and writes when each reached the target accuracy, with how many bytes, and what each had after
 * the same training time. Each system is measured after an untimed warm-up of its own ({@link WarmedUpSystem}), so
 * its place in the order does not count.
 */
@Command(name = "time-to-accuracy", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Time and bytes to a test accuracy: bitopk's modes against DL4J's ParameterAveragingTrainingMaster",
        "(patm-F: averaging every F minibatches), SharedTrainingMaster (shared) and a single-JVM fit, same MLP",
        "(--model mlp), data, workers, batch, lr and initial parameters. Writes OUT/time-to-accuracy.csv,",
        "OUT/trace-<system>.csv, OUT/time-to-accuracy.png, OUT/environment.json, bitopk's run directories, _SUCCESS."})
public final class TimeToAccuracyCommand implements Callable<Integer> {
  static final List<String> DEFAULT_SYSTEMS = List.of("bitopk-bidirectional", "bitopk-unidirectional",
      "bitopk-dense", "patm-1", "patm-5", "patm-20", "single-jvm", "shared");
  static final String SUCCESS = "_SUCCESS";

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--out", paramLabel = "DIR", description = "Output directory (any Hadoop URI); must be empty or "
      + "absent unless --overwrite.")
  String out;

  @Option(names = "--overwrite", description = "Remove an existing OUT first.")
  boolean overwrite;

  @Option(names = "--systems", paramLabel = "LIST", split = ",", description = "Systems to compare, in this "
      + "order: bitopk-bidirectional, bitopk-unidirectional, bitopk-dense, patm-F (F >= 1), shared, single-jvm; "
      + "bitopk-bidirectional-rho-RHO and bitopk-unidirectional-rho-RHO run with density RHO instead of "
      + "--density; a bitopk system's name may end in -values-FORMAT (fp16, bf16, int8) for the format of the "
      + "values it sends, up and, bidirectional, down (default: ${DEFAULT-VALUE}).")
  List<String> systems = new ArrayList<>(DEFAULT_SYSTEMS);

  @Option(names = "--target", paramLabel = "ACC", description = "Target test accuracy, a fraction (default: "
      + "${DEFAULT-VALUE}).")
  double target = 0.85;

  @Option(names = "--eval-every", paramLabel = "N", description = "Evaluate on the test set every N rounds (one "
      + "minibatch per worker each; patm-F rounds it up to whole averagings) (default: ${DEFAULT-VALUE}).")
  int evalEvery = 50;

  @Option(names = "--max-seconds", paramLabel = "S", description = "Training-clock budget per system; it stops at "
      + "the first evaluation past it (default: ${DEFAULT-VALUE}).")
  double maxSeconds = 300;

  @Option(names = "--warm-up-seconds", paramLabel = "S", description = "Before it is measured, each system trains "
      + "this long (at most one epoch) from the same start, untimed and discarded, so that none pays for the JVM's "
      + "and Spark's first-use costs; 0 = no warm-up (default: ${DEFAULT-VALUE}).")
  double warmUpSeconds = 30;

  @Option(names = "--epochs", paramLabel = "N", description = "At most N epochs per system (default: "
      + "${DEFAULT-VALUE}).")
  int epochs = 3;

  @Option(names = "--workers", paramLabel = "P", description = "Workers (default: ${DEFAULT-VALUE}).")
  int workers = 4;

  @Option(names = "--batch-size", paramLabel = "B", description = "Minibatch per worker (default: ${DEFAULT-VALUE}).")
  int batchSize = 32;

  @Option(names = "--lr", paramLabel = "LR", description = "SGD learning rate, every system (default: "
      + "${DEFAULT-VALUE}).")
  double lr = 0.1;

  @Option(names = "--density", paramLabel = "RHO", description = "bitopk's density up and down, for "
      + "systems without a -rho-RHO of their own (default: ${DEFAULT-VALUE}).")
  double density = 0.01;

  @Option(names = "--seed", paramLabel = "N", description = "Seed of the initial parameters and the data order "
      + "(default: ${DEFAULT-VALUE}).")
  long seed = 42;

  @Option(names = "--dataset", paramLabel = "NAME", description = "fashion-mnist (default), mnist or "
      + "synthetic[:options] (28x28x1 images, 10 classes, for the MLP).")
  String dataset = "fashion-mnist";

  @Option(names = "--data", paramLabel = "DIR", description = "The data set's directory (default: its standard "
      + "location).")
  String data;

  @Option(names = "--master", paramLabel = "URL", description = "Spark master (default: the one spark-submit "
      + "sets, else local[*]).")
  String master;

  private final JavaSparkContext provided;

  public TimeToAccuracyCommand() {
    this(null);
  }

  /** For tests and embedding: runs on an existing context, which it leaves running. */
  public TimeToAccuracyCommand(JavaSparkContext existing) {
    this.provided = existing;
  }

  @Override
  public Integer call() throws Exception {
    if (out == null || out.isBlank()) {
      throw usage("--out: needed, the output directory");
    }
    ComparisonSettings settings;
    List<ComparedSystem> chosen;
    try {
      settings = new ComparisonSettings(dataset, data, workers, batchSize, lr, density, seed, evalEvery, maxSeconds,
          epochs, target);
      chosen = parseSystems(systems);
      if (!(warmUpSeconds >= 0) || Double.isInfinite(warmUpSeconds)) {
        throw new IllegalArgumentException("--warm-up-seconds: expected a number of seconds >= 0, got "
            + warmUpSeconds);
      }
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    Configuration conf = provided != null ? provided.hadoopConfiguration() : new Configuration();
    TrainTest loaded;
    try {
      loaded = Datasets.load(dataset, data, conf);
    } catch (IllegalArgumentException e) {
      throw usage((data != null && !dataset.startsWith("synthetic") ? "--data: " : "--dataset: ") + e.getMessage());
    }
    if (loaded.train().featureLength() != 784 || loaded.train().channels() != 1) {
      throw usage("--dataset: the MLP takes 28x28x1 images, " + dataset + " has " + loaded.train().channels() + "x"
          + loaded.train().height() + "x" + loaded.train().width());
    }
    Path dir = new Path(out);
    FileSystem fs = dir.getFileSystem(conf);
    if (fs.exists(dir)) {
      if (!fs.getFileStatus(dir).isDirectory()) {
        throw usage("--out: " + out + " is a file, expected a directory");
      }
      if (fs.listStatus(dir).length > 0) {
        if (!overwrite) {
          throw usage("--out: " + out + " is not empty; pass --overwrite to replace it");
        }
        fs.delete(dir, true);
      }
    }
    fs.mkdirs(dir);
    dir = fs.makeQualified(dir);
    PrintWriter console = spec.commandLine().getOut();
    MachineEnvironment environment = MachineEnvironment.start(String.join(" ", commandLine()));
    JavaSparkContext sc = provided != null ? provided : SparkSetup.start(withNd4jKryo(SparkSetup.conf(master)));
    List<SystemResult> results = new ArrayList<>();
    try {
      for (int i = 0; i < chosen.size(); i++) {
        ComparedSystem system = chosen.get(i);
        String prefix = String.format(Locale.ROOT, "[%d/%d] %s: ", i + 1, chosen.size(), system.name());
        console.println(prefix + (warmUpSeconds > 0 ? String.format(Locale.ROOT,
            "warming up (%s s, not measured), then training", warmUpSeconds) : "training"));
        console.flush();
        SystemResult result;
        try {
          result = WarmedUpSystem.run(system, new ComparedSystem.Context(sc, settings, loaded, dir, console),
              warmUpSeconds, fs);
        } catch (Exception | LinkageError e) {
          result = SystemResult.failed(system.name(), "did not train", Trace.empty(),
              e.getClass().getName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
        results.add(result);
        console.println(prefix + describe(result, settings.target()));
        console.flush();
        write(fs, new Path(dir, "trace-" + result.system() + ".csv"), ComparisonTable.traceCsv(result));
        // the table so far after every system: a process killed later (the kernel's OOM killer) still leaves it
        write(fs, new Path(dir, ComparisonTable.FILE), ComparisonTable.csv(results, settings.target()));
      }
    } finally {
      if (provided == null) {
        sc.stop();
      }
    }
    write(fs, new Path(dir, ComparisonTable.FILE), ComparisonTable.csv(results, settings.target()));
    ComparisonChart.write(fs, dir, results, settings);
    environment.finishInto(fs, dir);
    write(fs, new Path(dir, SUCCESS), "");
    console.println("bitopk: " + results.size() + " systems compared; table in " + dir + "/" + ComparisonTable.FILE);
    console.flush();
    return 0;
  }

  /** DL4J's Spark masters ship DataSets (INDArrays) through Kryo: ND4J's registrator next to the job's. */
  static SparkConf withNd4jKryo(SparkConf conf) {
    String registrators = conf.get("spark.kryo.registrator", "");
    if (!registrators.contains("org.nd4j.kryo.Nd4jRegistrator")) {
      conf.set("spark.kryo.registrator", (registrators.isBlank() ? "" : registrators + ",")
          + "org.nd4j.kryo.Nd4jRegistrator");
    }
    return conf;
  }

  /** The systems a {@code --systems} list names, each once, in its order. */
  static List<ComparedSystem> parseSystems(List<String> names) {
    if (names == null || names.isEmpty()) {
      throw new IllegalArgumentException("--systems: expected at least one system");
    }
    Set<String> seen = new LinkedHashSet<>();
    List<ComparedSystem> chosen = new ArrayList<>();
    for (String raw : names) {
      String name = raw.trim().toLowerCase(Locale.ROOT);
      ComparedSystem system = parseSystem(name);
      // by the parsed name, so that -rho-0.001 and -rho-0.0010 are the same system (and run directory)
      if (!seen.add(system.name())) {
        throw new IllegalArgumentException("--systems: '" + name + "' is listed twice");
      }
      chosen.add(system);
    }
    return chosen;
  }

  private static ComparedSystem parseSystem(String name) {
    if (name.startsWith(BitopkSystem.PREFIX)) {
      int valuesAt = name.lastIndexOf(BitopkSystem.VALUES_INFIX);
      ValueFormat values = ValueFormat.FP32;
      String rest = name;
      if (valuesAt >= 0) {
        try {
          values = ValueFormat.parse(name.substring(valuesAt + BitopkSystem.VALUES_INFIX.length()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--systems: '" + name + "': " + e.getMessage());
        }
        rest = name.substring(0, valuesAt);
      }
      for (Mode m : Mode.values()) {
        String mode = BitopkSystem.PREFIX + m.cliName();
        if (rest.equals(mode)) {
          try {
            return new BitopkSystem(m, null, values);
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--systems: '" + name + "': " + e.getMessage());
          }
        }
        if (rest.startsWith(mode + BitopkSystem.DENSITY_INFIX)) {
          String rho = rest.substring(mode.length() + BitopkSystem.DENSITY_INFIX.length());
          try {
            return new BitopkSystem(m, new BigDecimal(rho), values);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--systems: '" + name + "': expected a density after '"
                + BitopkSystem.DENSITY_INFIX + "', got '" + rho + "'");
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--systems: '" + name + "': " + e.getMessage());
          }
        }
      }
    } else if (name.startsWith(ParameterAveraging.PREFIX)) {
      String f = name.substring(ParameterAveraging.PREFIX.length());
      if (f.matches("[1-9][0-9]{0,5}")) {
        return new ParameterAveraging(Integer.parseInt(f));
      }
    } else if (name.equals(SingleJvmFit.NAME)) {
      return new SingleJvmFit();
    } else if (name.equals(SharedTraining.NAME)) {
      return new SharedTraining();
    }
    throw new IllegalArgumentException("--systems: unknown system '" + name + "'; expected bitopk-bidirectional, "
        + "bitopk-unidirectional (either with -rho-RHO for a density of its own, then -values-FORMAT for fp16, bf16 "
        + "or int8 values), bitopk-dense, patm-F (F an averaging frequency >= 1), shared or single-jvm");
  }

  private static String describe(SystemResult r, double target) {
    StringBuilder s = new StringBuilder();
    if (r.failure() != null) {
      s.append("FAILED: ").append(r.failure()).append("; ");
    }
    s.append(r.trace().firstReaching(target).map(p -> String.format(Locale.ROOT,
        "reached %.1f %% after %.1f s%s", 100 * target, p.seconds(), r.bytesMeasured() ? ", " + p.bytes() + " bytes"
            : "")).orElse(String.format(Locale.ROOT, "did not reach %.1f %%", 100 * target)));
    r.trace().last().ifPresent(p -> s.append(String.format(Locale.ROOT, "; %.2f %% after %.1f s, %d rounds",
        100 * p.accuracy(), p.seconds(), p.rounds())));
    return s.toString();
  }

  private List<String> commandLine() {
    List<String> words = new ArrayList<>(List.of("time-to-accuracy", "--out", out, "--systems", String.join(",", systems),
        "--target", String.valueOf(target), "--eval-every", String.valueOf(evalEvery), "--max-seconds",
        String.valueOf(maxSeconds), "--warm-up-seconds", String.valueOf(warmUpSeconds), "--epochs",
        String.valueOf(epochs), "--workers", String.valueOf(workers),
        "--batch-size", String.valueOf(batchSize), "--lr", String.valueOf(lr), "--density", String.valueOf(density),
        "--seed", String.valueOf(seed), "--dataset", dataset));
    if (data != null) {
      words.addAll(List.of("--data", data));
    }
    return words;
  }

  private static void write(FileSystem fs, Path file, String text) throws IOException {
    AtomicFiles.write(fs, file, stream -> stream.write(text.getBytes(StandardCharsets.UTF_8)));
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
