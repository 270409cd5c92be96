package org.bitopk.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
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
import picocli.CommandLine;

/**
 * One invocation of {@code train}, as the steps of {@link #run}. The run checks everything it can before Spark
 * starts and writes nothing before it claims the output directory; a table is read by the executors first, so one
 * that cannot be used leaves the directory untouched (not even logs/). What the steps take (the SparkContext, the
 * lease, the driver log's copy) is kept here for {@link #release}, and the prepared run and the log's location for
 * {@link #failed}.
 */
final class TrainLaunch {
  /** The command's logger: the driver log names the command, not this class. */
  private static final Logger LOG = LoggerFactory.getLogger("org.bitopk.cli.TrainCommand");
  private static final DateTimeFormatter LOG_STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private final TrainingConfig cfg;
  /** The context a test or an embedding application runs it on; without one, the launch starts its own. */
  private final Optional<JavaSparkContext> provided;
  private final CommandLine commandLine;
  private final boolean verbose;
  private final PrintWriter err;
  private final Consumer<String> warnings;
  /** The driver log the CLI installed; a provided context's application keeps its own logging. */
  private final Optional<DriverLog> log;
  /** The context once started or taken: a signal cancels its jobs, and {@link #release} stops one it started. */
  private final AtomicReference<JavaSparkContext> spark = new AtomicReference<>();
  private Optional<PreparedRun> prepared = Optional.empty();
  private Optional<RunLease> lease = Optional.empty();
  /** Where the log goes at the end, when the output is not on the local file system. */
  private Optional<Path> copyLogTo = Optional.empty();
  /** The log a failure's line points to. */
  private Optional<String> logShown = Optional.empty();

  TrainLaunch(TrainingConfig cfg, Optional<JavaSparkContext> provided, CommandLine commandLine, boolean verbose) {
    this.cfg = cfg;
    this.provided = provided;
    this.commandLine = commandLine;
    this.verbose = verbose;
    this.err = commandLine.getErr();
    this.warnings = w -> {
      err.println("bitopk: warning: " + w);
      err.flush();
    };
    this.log = provided.isEmpty() ? DriverLog.installed() : Optional.empty();
  }

  /** The run, step by step; its exit code. */
  int run() throws IOException {
    Optional<SparkConf> sparkConf = provided.isEmpty() ? Optional.of(SparkSetup.conf(cfg.master().orElse(null)))
        : Optional.empty();
    Configuration hadoop = provided.isPresent() ? provided.get().hadoopConfiguration()
        : SparkSetup.hadoopConfiguration(sparkConf.orElseThrow());
    PreparedRun checked = checkBeforeSpark(sparkConf, hadoop);
    carryOutSignalsBetweenWrites();
    PreparedRun read = checked.dataRead() ? checked : readTable(checked, sparkConf);
    RunLease claimed = claimOutput(read);
    writeLogInto(read, claimed, hadoop);
    JavaSparkContext sc = spark(sparkConf);
    Interruption.stopIfRequested();
    return finish(read, train(sc, read, claimed));
  }

  /** Settings, input and master, before Spark starts: bad input costs no start-up and writes nothing. */
  private PreparedRun checkBeforeSpark(Optional<SparkConf> sparkConf, Configuration hadoop) {
    if (provided.isEmpty() && FashionMnistPackage.wanted(cfg)) {
      FashionMnistPackage.ensureInstalled(err);   // the main job sets up a fresh machine's default data itself
    }
    PreparedRun checked = PreparedRun.check(cfg, hadoop);
    prepared = Optional.of(checked);
    if (sparkConf.isPresent()) {
      String master = sparkConf.get().get("spark.master");
      MasterUrl.probe(master, MasterUrl.parse(master), MasterUrl.PROBE_TIMEOUT);
    }
    return checked;
  }

  /** From here on the run writes: a signal is carried out by this thread, between writes. */
  private void carryOutSignalsBetweenWrites() {
    Interruption.deferToMainThread(() -> Optional.ofNullable(spark.get()).ifPresent(JavaSparkContext::cancelAllJobs));
  }

  /** A table is read by the executors: Spark starts first, and the output is claimed once the table passed. */
  private PreparedRun readTable(PreparedRun checked, Optional<SparkConf> sparkConf) {
    JavaSparkContext sc = spark(sparkConf);
    Interruption.stopIfRequested();
    PreparedRun read = checked.withData(sc);
    prepared = Optional.of(read);
    return read;
  }

  private RunLease claimOutput(PreparedRun read) {
    RunLease claimed = read.claim(warnings);
    lease = Optional.of(claimed);
    Interruption.stopIfRequested();
    return claimed;
  }

  /** The CLI's driver log goes into the run's logs/ from now on. */
  private void writeLogInto(PreparedRun read, RunLease claimed, Configuration hadoop) throws IOException {
    if (log.isPresent()) {
      copyLogTo = startLogFile(log.get(), read, claimed, hadoop);
      logShown = Optional.of(copyLogTo.map(Path::toString).orElse(log.get().location().orElse("")));
    }
  }

  /** The context: the one given, the one already started, or a new one. */
  private JavaSparkContext spark(Optional<SparkConf> sparkConf) {
    JavaSparkContext sc = spark.get();
    if (sc == null) {
      sc = provided.isPresent() ? provided.get() : startSpark(sparkConf.orElseThrow());
      spark.set(sc);
    }
    return sc;
  }

  private TrainingRun.Result train(JavaSparkContext sc, PreparedRun read, RunLease claimed) throws IOException {
    PrintStream console = log.map(DriverLog::consoleErr).orElse(System.err);
    boolean progress = !cfg.quiet() && ProgressDisplay.terminalAttached();
    return TrainingRun.execute(sc, read, claimed, new TrainingRun.Options(progress ? Optional.of(console)
        : Optional.empty(), List.of(), warnings, Interruption::stopIfRequested));
  }

  /** Prints the summary; a signal that came after the last round did not cut the run short. */
  private int finish(PreparedRun read, TrainingRun.Result result) {
    PrintWriter out = commandLine.getOut();
    out.print(result.summaryText());
    out.flush();
    if (Interruption.requested()) {
      return Interruption.report(err, " after the last round; the run finished: " + read.output()
          + " holds it (_SUCCESS)", true);
    }
    return ExitCode.OK;
  }

  /** Reports a failure in one line (an interruption in its own words); its exit code. */
  int failed(Throwable failure) {
    if (Interruption.exiting()) {
      return ExitCode.INTERRUPTED;   // the interruption printed its line; the JVM is exiting
    }
    if (Interruption.requested() && prepared.isPresent()) {
      LOG.info("stopped by a signal", failure);
      return Interruption.report(err, prepared.get().interruptedStatus(), false);
    }
    if (Failures.isBadInput(failure)) {
      LOG.info("refused: {}", failure.getMessage());
    } else {
      LOG.error("the run failed", failure);
    }
    return Failures.report(failure, err, logShown, verbose);
  }

  /** Stops a context the launch started, copies the log into the run and gives the output directory up. */
  void release() {
    JavaSparkContext sc = spark.get();
    if (sc != null && provided.isEmpty()) {
      stopQuietly(sc);
    }
    lease.ifPresent(claimed -> {
      copyLogTo.ifPresent(target -> copyLog(log.orElseThrow(), target, claimed));
      claimed.close();
    });
  }

  /**
   * Starts writing the driver's log into the run's {@code logs/} directory: directly when the output is on
   * the local file system, else into a local temporary file copied there at the end (returned).
   */
  private static Optional<Path> startLogFile(DriverLog log, PreparedRun prepared, RunLease lease,
      Configuration hadoop) throws IOException {
    String name = "driver-" + LOG_STAMP.format(Instant.now()) + ".log";
    Path inRun = new Path(new Path(prepared.output(), RunDirectory.LOGS), name);
    FileSystem fs = prepared.fileSystem();
    // written around the file system the run records its writes through: recorded here (it grows until the end)
    lease.fileSystem().mkdirs(inRun.getParent());
    lease.manifest().orElseThrow().growing(RunDirectory.LOGS + "/" + name);
    if ("file".equals(fs.getScheme())) {
      log.writeTo(inRun, hadoop);
      return Optional.empty();
    }
    java.io.File local = new java.io.File(System.getProperty("java.io.tmpdir"), "bitopk-" + prepared.runId() + "-" + name);
    log.writeTo(new Path(local.toURI()), hadoop);
    return Optional.of(inRun);
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
