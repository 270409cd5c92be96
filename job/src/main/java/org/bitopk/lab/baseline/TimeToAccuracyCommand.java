package org.bitopk.lab.baseline;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
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
 * the same training time. The systems are those of the build's {@link SystemFamily} list: DL4J's Spark masters
 * only on the Spark 3.5 build (job/dl4j-baselines). Each system is measured after an untimed warm-up of its own ({@link WarmedUpSystem}), so
 * its place in the order does not count; with {@code --cold}, first, each also from its own command to the target
 * ({@link ColdStart}).
 */
@Command(name = "time-to-accuracy", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Time and bytes to a test accuracy: bitopk's modes against DL4J's ParameterAveragingTrainingMaster",
        "(patm-F: averaging every F minibatches), SharedTrainingMaster (shared) and a single-JVM fit, same MLP",
        "(--model mlp), data, workers, batch, lr and initial parameters (patm-F and shared: Spark 3.5 build only).",
        "Writes OUT/time-to-accuracy.csv,",
        "OUT/trace-<system>.csv, OUT/time-to-accuracy.png, OUT/environment.json, bitopk's run directories, _SUCCESS;",
        "with --cold, OUT/cold/<system>/ and OUT/cold/<system>.log."})
public final class TimeToAccuracyCommand implements Callable<Integer> {
  /** Every system of the job's own and, on the Spark 3.5 build, DL4J's Spark masters. */
  static final List<String> DEFAULT_SYSTEMS = SystemFamilies.installed().defaultSystems();
  static final String SUCCESS = "_SUCCESS";

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--out", paramLabel = "DIR", description = "Output directory (any Hadoop URI); must be empty or "
      + "absent unless --overwrite.")
  String out;

  @Option(names = "--overwrite", description = "Remove an existing OUT first.")
  boolean overwrite;

  @Option(names = "--systems", paramLabel = "LIST", split = ",", description = "Systems to compare, in this "
      + "order: bitopk-bidirectional, bitopk-unidirectional, bitopk-dense, bitopk-dense-fp16, bitopk-sidco, "
      + "bitopk-dgc, patm-F (F >= 1) and shared (Spark 3.5 build only), single-jvm; the sparse bitopk systems with -rho-RHO run with "
      + "density RHO instead of --density; a bitopk system's name may end in -values-FORMAT (fp16, bf16, int8) for "
      + "the format of the values it sends, up and, bidirectional, down (default: ${DEFAULT-VALUE}).")
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

  @Option(names = "--max-seconds-of", paramLabel = "SYSTEM[@RATE]=S,...", split = ",", description = "A "
      + "training-clock budget of its own for some systems, or for a system at one of --rates, e.g. "
      + "bitopk-dense=240,bitopk-dense@none=90 (the others: --max-seconds).")
  java.util.Map<String, Double> maxSecondsOf = new java.util.LinkedHashMap<>();

  @Option(names = "--warm-up-seconds", paramLabel = "S", description = "Before it is measured, each system trains "
      + "this long (at most one epoch) from the same start, untimed and discarded, so that none pays for the JVM's "
      + "and Spark's first-use costs; 0 = no warm-up (default: ${DEFAULT-VALUE}).")
  double warmUpSeconds = 30;

  @Option(names = "--warm-up-rounds", paramLabel = "N", description = "Instead of --warm-up-seconds: before any "
      + "system is measured, every system trains N rounds from the same start, untimed and discarded (on the "
      + "network lab with its links unshaped), so each is measured after the same rounds of its own code and none "
      + "after the others' alone; 0 = --warm-up-seconds (default: ${DEFAULT-VALUE}).")
  long warmUpRounds = 0;

  @Option(names = "--cold", description = "Also measure every system cold, as a user meets it: before the "
      + "warm runs, each in a JVM of its own (same java, options, class path, --master and Spark settings: a new "
      + "Spark application) with no warm-up, stopping at --target; column cold_seconds_to_target: seconds from "
      + "launching it to its trace at the target, start-up, data and JIT included.")
  boolean cold;

  @Option(names = "--stop-at-target", description = "Stop each system at its first evaluation that reaches "
      + "--target instead of training on to its budget: budgets can then be generous without costing time.")
  boolean stopAtTarget;

  @Option(names = "--start-within", paramLabel = "S", description = "Start no system more than S seconds of wall "
      + "clock after the command started (warm-ups, evaluations and start-up included): the ones left are rows "
      + "'not run' and the comparison still finishes, so a reserved time slot ends with a complete output "
      + "(default: no limit).")
  double startWithin = Double.POSITIVE_INFINITY;

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

  @Option(names = "--lr-grid", paramLabel = "LR,...", split = ",", description = "Choose each system's learning "
      + "rate instead of timing: every system trains at each rate for at most --grid-rounds rounds (no clock, no "
      + "warm-up; it stops at the target) and OUT/" + LearningRateChoice.FILE + " records per system the rate "
      + "with the fewest rounds to the target (none reaching it: the highest final accuracy) and every point.")
  List<Double> lrGrid;

  @Option(names = "--grid-rounds", paramLabel = "N", description = "Round budget of each point of --lr-grid "
      + "(default: ${DEFAULT-VALUE}).")
  long gridRounds = 2000;

  @Option(names = "--lr-choice", paramLabel = "FILE", description = "Train each system at its own learning rate "
      + "from FILE (an " + LearningRateChoice.FILE + " written by --lr-grid) instead of --lr (a system FILE lacks: "
      + "--lr, said in its details); copied into OUT, and each row's details say the rate and the grid's outcome.")
  String lrChoice;

  @Option(names = "--rates", paramLabel = "RATE,...", split = ",", description = "Under submit/netlab.sh only: "
      + "every system at each link rate in turn (e.g. 100mbit,1gbit,none), the lab re-shaping its links and timing "
      + "a transfer before each; rows and traces are SYSTEM@RATE, OUT/" + LabLinks.FILE + " the measured rates, "
      + "OUT/time-to-accuracy@RATE.png one chart per rate. Each system warms up once, before its first rate.")
  List<String> rates;

  @Option(names = "--cut", paramLabel = "HOST:rROUND:SECONDS", description = "Under submit/netlab.sh only: in "
      + "every measured run, worker host HOST's link goes down once the run has completed ROUND rounds and up "
      + "again SECONDS later (or when the run ends); the DDP systems then checkpoint at every evaluation and "
      + "restart from the newest checkpoint when their run fails; each row says what the cut did, e.g. 2:r100:80.")
  String cut;

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
    LinkCut linkCut;
    try {
      settings = new ComparisonSettings(dataset, data, workers, batchSize, lr, density, seed, evalEvery, maxSeconds,
          epochs, target);
      chosen = parseSystems(systems);
      if (!(warmUpSeconds >= 0) || Double.isInfinite(warmUpSeconds)) {
        throw new IllegalArgumentException("--warm-up-seconds: expected a number of seconds >= 0, got "
            + warmUpSeconds);
      }
      if (warmUpRounds < 0) {
        throw new IllegalArgumentException("--warm-up-rounds: expected a number of rounds >= 0, got "
            + warmUpRounds);
      }
      if (stopAtTarget) {
        settings = settings.stoppingAtTarget();
      }
      if (!(startWithin > 0)) {
        throw new IllegalArgumentException("--start-within: expected a number of seconds > 0, got " + startWithin);
      }
      LearningRateGrid.check(lrGrid, gridRounds, lrChoice, rates);
      ColdStart.check(cold, lrGrid != null, java.util.Optional.ofNullable(provided));
      linkCut = cut == null ? null : LinkCut.parse(cut, lrGrid != null);
      Set<String> names = new HashSet<>();
      chosen.forEach(system -> names.add(system.name()));
      for (java.util.Map.Entry<String, Double> e : maxSecondsOf.entrySet()) {
        String system = e.getKey().contains("@") ? e.getKey().substring(0, e.getKey().indexOf('@')) : e.getKey();
        if (!names.contains(system)) {
          throw new IllegalArgumentException("--max-seconds-of: " + system + " is not one of --systems");
        }
        settings.withMaxSeconds(e.getValue());
      }
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    List<String> linkRates = new ArrayList<>();
    LabLinks links = null;
    if (rates != null) {
      try {
        for (String r : rates) {
          linkRates.add(LabLinks.checkRate(r));
        }
        if (new LinkedHashSet<>(linkRates).size() != linkRates.size()) {
          throw new IllegalArgumentException("--rates: a rate is listed twice: " + String.join(",", rates));
        }
        links = LabLinks.fromEnvironment();
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
    }
    Configuration conf = provided != null ? provided.hadoopConfiguration() : new Configuration();
    LearningRateChoice choice = null;
    if (lrChoice != null) {
      try {
        choice = LearningRateGrid.read(conf, lrChoice, chosen);
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
    }
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
    long startedNanos = System.nanoTime();
    java.util.Map<String, ColdResult> coldRuns = !cold ? java.util.Map.of() : new ColdStart(settings,
        ColdStart.passedOn(master, provided, lrChoice), fs, dir, console).run(chosen, links == null ? List.of("")
        : linkRates, java.util.Optional.ofNullable(links), this::budget, () -> late(startedNanos));
    JavaSparkContext sc = provided != null ? provided : SparkSetup.start(sparkConf(SparkSetup.conf(master), chosen));
    try {
      if (lrGrid != null) {
        LearningRateChoice grid = new LearningRateGrid(lrGrid, gridRounds).run(sc, settings, chosen, loaded, dir, fs,
            console);
        AtomicFiles.writeText(fs, new Path(dir, LearningRateChoice.FILE), grid.toJson());
        environment.finishInto(fs, dir);
        AtomicFiles.writeText(fs, new Path(dir, SUCCESS), "");
        console.println("bitopk: learning rates of " + chosen.size() + " systems chosen; in " + dir + "/"
            + LearningRateChoice.FILE);
        console.flush();
        return 0;
      }
      if (choice != null) {
        AtomicFiles.writeText(fs, new Path(dir, LearningRateChoice.FILE), choice.toJson());
      }
      List<SystemResult> results = new ArrayList<>();
      StringBuilder linksCsv = new StringBuilder("rate,probe_mbit_per_second,executors,task_slots,lab\n");
      Set<String> warm = new HashSet<>();
      java.util.Map<String, String> failedAt = new java.util.HashMap<>();
      java.util.Map<String, SystemResult> coldFailures = warmUpRounds > 0
          ? warmUpAll(sc, settings, choice, chosen, loaded, dir, fs, links, console) : java.util.Map.of();
      List<String> settingsOfLinks = links == null ? List.of("") : linkRates;
      int total = chosen.size() * settingsOfLinks.size();
      int n = 0;
      for (String rate : settingsOfLinks) {
        String suffix = rate.isEmpty() ? "" : "@" + rate;
        String linkNote = "";
        List<SystemResult> atRate = new ArrayList<>();
        if (links != null) {
          console.println("links: " + rate + ", timing a transfer");
          console.flush();
          double measured = links.reshape(rate);
          linksCsv.append(ComparisonTable.row(List.of(rate, ComparisonTable.number(measured),
              Integer.toString(sc.sc().statusTracker().getExecutorInfos().length - 1),
              Integer.toString(sc.defaultParallelism()), links.settings()))).append('\n');
          AtomicFiles.writeText(fs, new Path(dir, LabLinks.FILE), linksCsv.toString());
          linkNote = String.format(Locale.ROOT, "links %s (a timed transfer: %.1f Mbit/s); ", rate, measured);
        }
        for (ComparedSystem system : chosen) {
          n++;
          String label = system.name() + suffix;
          String prefix = String.format(Locale.ROOT, "[%d/%d] %s: ", n, total, label);
          boolean first = warm.add(system.name());
          double warmUp = first && warmUpRounds == 0 ? warmUpSeconds : 0;
          String note = linkNote + (choice == null ? "" : choice.of(system.name()).isPresent()
              ? choice.describe(system.name()) + "; " : "lr " + ComparisonTable.number(lr) + " (--lr: not in "
              + LearningRateChoice.FILE + "); ");
          SystemResult result;
          if (coldFailures.containsKey(system.name())) {
            SystemResult failed = coldFailures.get(system.name());
            result = SystemResult.failed(label, note + failed.details(), Trace.empty(), failed.failure());
            failedAt.put(system.name(), "its warm-up");
          } else if (late(startedNanos).isPresent()) {
            result = SystemResult.failed(label, note + "not run", Trace.empty(), late(startedNanos).get());
          } else if (failedAt.containsKey(system.name())) {
            result = SystemResult.failed(label, "not run", Trace.empty(), "it failed at "
                + failedAt.get(system.name()));
          } else {
            console.println(prefix + (warmUp > 0 ? String.format(Locale.ROOT,
                "warming up (%s s, not measured), then training", warmUp) : "training"));
            console.flush();
            ComparisonSettings own = ownRate(settings.withMaxSeconds(budget(system, label)), choice, system);
            RunFault fault = linkCut == null ? RunFault.NONE : new LinkCutRun(linkCut, label, ExecutorCount.of(sc),
                console);
            try {
              result = WarmedUpSystem.run(system, new ComparedSystem.Context(sc, own, loaded, dir, console, label,
                  fault), warmUp, fs);
              String pace = RoundPace.of(result.trace(), settings.evalEvery()).map(p -> p.text() + "; ").orElse("");
              result = result.labelled(label, note + pace);
            } catch (Exception | LinkageError e) {
              result = SystemResult.failed(label, note + "did not train", Trace.empty(),
                  e.getClass().getName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            }
            fault.close(); // the link is up again, and the executors back, before the next system
            result = result.labelled(result.system(), fault.describe());
            if (result.failure() != null) {
              failedAt.put(system.name(), rate.isEmpty() ? "its first run" : rate);
            }
          }
          results.add(result);
          atRate.add(result);
          console.println(prefix + result.summary(settings.target(), evalEvery) + (cold ? "; cold: "
              + coldRuns.get(label).summary() : ""));
          console.flush();
          AtomicFiles.writeText(fs, new Path(dir, "trace-" + result.system() + ".csv"),
              ComparisonTable.traceCsv(result));
          // the table so far after every system: a process killed later (the kernel's OOM killer) still leaves it
          AtomicFiles.writeText(fs, new Path(dir, ComparisonTable.FILE),
              ComparisonTable.csv(results, settings.target(), coldRuns));
        }
        if (links != null) {
          ComparisonChart.write(fs, new Path(dir, "time-to-accuracy" + suffix + ".png"), atRate, settings,
              "bitopk: time to accuracy, links " + rate);
        }
      }
      AtomicFiles.writeText(fs, new Path(dir, ComparisonTable.FILE),
          ComparisonTable.csv(results, settings.target(), coldRuns));
      ComparisonChart.write(fs, new Path(dir, ComparisonChart.FILE), results, settings,
          "bitopk: time to accuracy against DL4J");
      environment.finishInto(fs, dir);
      AtomicFiles.writeText(fs, new Path(dir, SUCCESS), "");
      console.println("where the rounds' training clock went (ms per round, mean over the measured rounds):");
      console.print(ComparisonTable.splitTable(results));
      console.println("bitopk: " + results.size() + " systems compared" + (cold ? ", warm and cold" : "")
          + "; table in " + dir + "/" + ComparisonTable.FILE);
      console.flush();
      return 0;
    } finally {
      if (provided == null) {
        sc.stop();
      }
    }
  }

  /** The training-clock budget of {@code system} at {@code label}: its own from --max-seconds-of, else the one. */
  private double budget(ComparedSystem system, String label) {
    return maxSecondsOf.getOrDefault(label, maxSecondsOf.getOrDefault(system.name(), maxSeconds));
  }

  /** Why no more systems start: --start-within has passed since {@code startedNanos}. */
  private java.util.Optional<String> late(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9 > startWithin ? java.util.Optional.of(String.format(Locale.ROOT,
        "not run: --start-within %s s had passed", ComparisonTable.number(startWithin))) : java.util.Optional.empty();
  }

  /** {@code settings} at the system's learning rate from {@code --lr-choice}, if it has one. */
  private static ComparisonSettings ownRate(ComparisonSettings settings, LearningRateChoice choice,
      ComparedSystem system) {
    return choice == null ? settings : choice.of(system.name()).map(c -> settings.withLearningRate(c.lr()))
        .orElse(settings);
  }

  /**
   * {@code --warm-up-rounds}: every system trains that many rounds, untimed, before any is measured (on the lab
   * with its links unshaped, where a round costs the least); the systems that failed in it, by name.
   */
  private java.util.Map<String, SystemResult> warmUpAll(JavaSparkContext sc, ComparisonSettings settings,
      LearningRateChoice choice, List<ComparedSystem> chosen, TrainTest loaded, Path dir, FileSystem fs,
      LabLinks links, PrintWriter console) throws IOException, InterruptedException {
    if (links != null) {
      console.println("links: none for the warm-up, timing a transfer");
      console.flush();
      links.reshape("none");
    }
    java.util.Map<String, SystemResult> failed = new java.util.HashMap<>();
    int n = 0;
    for (ComparedSystem system : chosen) {
      n++;
      console.println(String.format(Locale.ROOT, "[warm-up %d/%d] %s: %d rounds, not measured", n, chosen.size(),
          system.name(), warmUpRounds));
      console.flush();
      ComparisonSettings own = ownRate(settings.withMaxSeconds(budget(system, system.name())), choice, system)
          .forWarmUp(warmUpRounds);
      WarmedUpSystem.warmUp(system, new ComparedSystem.Context(sc, own, loaded, dir, console, system.name()), own, fs)
          .ifPresent(f -> {
            failed.put(system.name(), f);
            console.println("[warm-up] " + system.name() + ": FAILED: " + f.failure());
          });
    }
    return failed;
  }

  /** The Spark configuration of a comparison of {@code systems}: what each family of this build needs. */
  static SparkConf sparkConf(SparkConf conf, List<ComparedSystem> systems) {
    return SystemFamilies.installed().configure(conf, systems);
  }

  /** The systems a {@code --systems} list names, each once, in its order, from the families this build has. */
  static List<ComparedSystem> parseSystems(List<String> names) {
    return SystemFamilies.installed().parse(names);
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
    if (warmUpRounds > 0) {
      words.addAll(List.of("--warm-up-rounds", String.valueOf(warmUpRounds)));
    }
    if (stopAtTarget) {
      words.add("--stop-at-target");
    }
    if (cold) {
      words.add("--cold");
    }
    if (Double.isFinite(startWithin)) {
      words.addAll(List.of("--start-within", ComparisonTable.number(startWithin)));
    }
    if (lrGrid != null) {
      words.addAll(List.of("--lr-grid", lrGrid.stream().map(ComparisonTable::number)
          .collect(java.util.stream.Collectors.joining(",")), "--grid-rounds", String.valueOf(gridRounds)));
    }
    if (lrChoice != null) {
      words.addAll(List.of("--lr-choice", lrChoice));
    }
    if (rates != null) {
      words.addAll(List.of("--rates", String.join(",", rates)));
    }
    if (cut != null) {
      words.addAll(List.of("--cut", cut));
    }
    if (!maxSecondsOf.isEmpty()) {
      words.addAll(List.of("--max-seconds-of", maxSecondsOf.entrySet().stream()
          .map(e -> e.getKey() + "=" + ComparisonTable.number(e.getValue()))
          .collect(java.util.stream.Collectors.joining(","))));
    }
    return words;
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
