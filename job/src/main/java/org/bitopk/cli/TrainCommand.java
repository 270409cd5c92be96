package org.bitopk.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.ExitCode;
import org.bitopk.job.RunFailedException;
import org.bitopk.job.config.MasterUrl;
import org.bitopk.job.config.TrainOptions;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.output.DriverLog;
import org.bitopk.job.output.ProgressDisplay;
import org.bitopk.job.output.RunDirectory;
import org.bitopk.job.output.RunLease;
import org.bitopk.job.run.PreparedRun;
import org.bitopk.job.run.TrainingRun;
import org.bitopk.job.spark.SparkSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** {@code train}: the default command. Every flag maps to one {@link TrainingConfig} setting. */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
    description = {
        "Trains a model data-parallel on Spark: executors are workers (gradient, error feedback, uplink",
        "compression), the driver is the parameter server (average, server residual, downlink compression,",
        "one broadcast per iteration). Writes config.json, metrics/*.jsonl, the model, summary.txt and",
        "_SUCCESS into the output directory (any Hadoop FileSystem URI)."},
    footer = {"", "Without arguments: Fashion-MNIST MLP, bidirectional TopK (density 0.01 up and down), 4 workers,",
        "1 epoch, into runs/<timestamp>. Other command: report --runs DIR1,DIR2,... --out FILE.png",
        "Exit codes: 0 done, 1 the run failed, 2 bad input or settings (nothing written), 130/143 interrupted",
        "(SIGINT/SIGTERM; checkpoints kept). Spark's and DL4J's messages go to <output>/logs/driver-<time>.log."})
public final class TrainCommand extends TrainOptions implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(TrainCommand.class);
  private static final DateTimeFormatter LOG_STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  /** The context a test or an embedding application runs it on; without one, the command starts its own. */
  private final Optional<JavaSparkContext> provided;

  /** For the CLI: starts its own SparkContext. */
  public TrainCommand() {
    this.provided = Optional.empty();
  }

  /** For tests and embedding: runs on an existing context, which it leaves running. */
  public TrainCommand(JavaSparkContext existing) {
    this.provided = Optional.of(existing);
  }

  @Override
  public Integer call() {
    TrainingConfig cfg;
    try {
      // a model file is read before Spark starts: with the context's Hadoop settings, or those Spark would load
      cfg = toConfig(provided.map(JavaSparkContext::hadoopConfiguration).orElseGet(SparkSetup::hadoopConfiguration));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    PrintWriter err = spec.commandLine().getErr();
    Consumer<String> warnings = w -> {
      err.println("bitopk: warning: " + w);
      err.flush();
    };
    Optional<DriverLog> log = provided.isEmpty() ? DriverLog.installed() : Optional.empty();
    RunLease lease = null;
    JavaSparkContext sc = null;
    Path copyLogTo = null;
    Optional<String> logShown = Optional.empty();
    PreparedRun prepared = null;
    try {
      SparkConf sparkConf = provided.isEmpty() ? SparkSetup.conf(cfg.master()) : null;
      Configuration hadoop = provided.isPresent() ? provided.get().hadoopConfiguration()
          : SparkSetup.hadoopConfiguration(sparkConf);
      if (provided.isEmpty() && FashionMnistPackage.wanted(cfg)) {
        FashionMnistPackage.ensureInstalled(err);   // the main job sets up a fresh machine's default data itself
      }
      prepared = PreparedRun.check(cfg, hadoop);
      if (sparkConf != null) {
        String master = sparkConf.get("spark.master");
        MasterUrl.probe(master, MasterUrl.parse(master), MasterUrl.PROBE_TIMEOUT);
      }
      // From here on the run writes: a signal is carried out by this thread, between writes.
      AtomicReference<JavaSparkContext> running = new AtomicReference<>();
      Interruption.deferToMainThread(() -> Optional.ofNullable(running.get()).ifPresent(JavaSparkContext::cancelAllJobs));
      if (!prepared.dataRead()) {
        // A table is read by the executors: Spark starts first, and the output directory is claimed only once
        // the table passed its checks, so a table that cannot be used leaves it untouched (not even logs/).
        sc = provided.isPresent() ? provided.get() : startSpark(sparkConf);
        running.set(sc);
        Interruption.stopIfRequested();
        prepared = prepared.withData(sc);
      }
      try {
        lease = prepared.claim(warnings);
      } catch (RuntimeException e) {
        prepared.discardData();
        throw e;
      }
      Interruption.stopIfRequested();
      if (log.isPresent()) {
        copyLogTo = startLogFile(log.get(), prepared, lease, hadoop);
        logShown = Optional.of(copyLogTo != null ? copyLogTo.toString() : log.get().location().orElse(""));
      }
      if (sc == null) {
        sc = provided.isPresent() ? provided.get() : startSpark(sparkConf);
        running.set(sc);
      }
      Interruption.stopIfRequested();
      PrintStream console = log.map(DriverLog::consoleErr).orElse(System.err);
      boolean progress = !cfg.quiet() && ProgressDisplay.terminalAttached();
      TrainingRun.Result result = TrainingRun.execute(sc, prepared, lease,
          new TrainingRun.Options(progress ? Optional.of(console) : Optional.empty(), List.of(), warnings,
              Interruption::stopIfRequested));
      PrintWriter out = spec.commandLine().getOut();
      out.print(result.summaryText());
      out.flush();
      if (Interruption.requested()) {
        // the signal came after the last round: the run was completed instead of being cut short
        return Interruption.report(err, " after the last round; the run finished: " + prepared.output()
            + " holds it (_SUCCESS)", true);
      }
      return ExitCode.OK;
    } catch (Throwable failure) {
      if (Interruption.exiting()) {
        return ExitCode.INTERRUPTED;   // the interruption printed its line; the JVM is exiting
      }
      if (Interruption.requested() && prepared != null) {
        LOG.info("stopped by a signal", failure);
        return Interruption.report(err, prepared.interruptedStatus(), false);
      }
      if (Failures.isBadInput(failure)) {
        LOG.info("refused: {}", failure.getMessage());
      } else {
        LOG.error("the run failed", failure);
      }
      return Failures.report(failure, err, logShown, verbose());
    } finally {
      if (sc != null && provided.isEmpty()) {
        stopQuietly(sc);
      }
      if (lease != null) {
        if (copyLogTo != null) {
          copyLog(log.get(), copyLogTo, lease);
        }
        lease.close();
      }
    }
  }

  /**
   * Starts writing the driver's log into the run's {@code logs/} directory: directly when the output is on
   * the local file system, else into a local temporary file copied there at the end (returned).
   */
  private static Path startLogFile(DriverLog log, PreparedRun prepared, RunLease lease, Configuration hadoop)
      throws IOException {
    String name = "driver-" + LOG_STAMP.format(Instant.now()) + ".log";
    Path inRun = new Path(new Path(prepared.output(), RunDirectory.LOGS), name);
    FileSystem fs = prepared.fileSystem();
    // written around the file system the run records its writes through: recorded here (it grows until the end)
    lease.fileSystem().mkdirs(inRun.getParent());
    lease.manifest().orElseThrow().growing(RunDirectory.LOGS + "/" + name);
    if ("file".equals(fs.getScheme())) {
      log.writeTo(inRun, hadoop);
      return null;
    }
    java.io.File local = new java.io.File(System.getProperty("java.io.tmpdir"), "bitopk-" + prepared.runId() + "-" + name);
    log.writeTo(new Path(local.toURI()), hadoop);
    return inRun;
  }

  private static void copyLog(DriverLog log, Path target, RunLease lease) {
    try {
      lease.check();   // a run that lost its directory leaves its log where it is
      log.moveTo(target, lease.fileSystem().getConf());
    } catch (IOException | RuntimeException | Error e) {
      LOG.warn("cannot copy the driver log to {}: {}", target, e.toString());
    }
  }

  /**
   * Starts the SparkContext; a standalone master that does not register the application within Spark's
   * own limit (3 attempts of 20 s) leaves a stopped context behind, reported here in one line.
   */
  private static JavaSparkContext startSpark(SparkConf conf) {
    String master = conf.get("spark.master");
    JavaSparkContext sc;
    try {
      sc = SparkSetup.start(conf);
    } catch (RuntimeException e) {
      throw new RunFailedException("--master " + master + ": Spark could not start: " + Failures.firstLine(e), e);
    }
    // A standalone master that never registers the application leaves a context that Spark stops in another
    // thread; using it meanwhile can hang (a broadcast racing the stop). Registered applications get an id
    // "app-..." from the master; without one, stop here and say so.
    boolean unregistered = master.startsWith("spark://") && !sc.sc().applicationId().startsWith("app-");
    if (unregistered || sc.sc().isStopped()) {
      stopQuietly(sc);
      throw new RunFailedException("--master " + master + ": the master did not accept the application (Spark "
          + "gave up after 3 registration attempts of 20 s): is it a Spark "
          + org.apache.spark.package$.MODULE$.SPARK_VERSION() + " standalone master, reachable from this host?");
    }
    return sc;
  }

  private static void stopQuietly(JavaSparkContext sc) {
    try {
      sc.stop();
    } catch (RuntimeException e) {
      LOG.warn("stopping Spark failed: {}", e.toString());
    }
  }
}
