package org.bitopk.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.ExitCode;
import org.bitopk.job.config.ConfigFile;
import org.bitopk.job.output.DriverLog;
import org.bitopk.job.report.ReportCommand;
import org.bitopk.job.spark.SparkSetup;
import org.bitopk.lab.evaluation.EvaluateCompressorsCommand;
import picocli.CommandLine;

/**
 * The commands behind {@link Main}: {@code train} (the default when no command is given), {@code experiment},
 * {@code report}, {@code evaluate-compressors}, {@code reproduction} and {@code time-to-accuracy}, how a command
 * line is parsed and run, and the console of {@link #run}: only the job's own lines, the progress bar and the
 * summary, Spark's, DL4J's and Hadoop's messages going to the run's log file (see {@link DriverLog}), unless
 * {@code --verbose}.
 */
final class Commands {

  private Commands() {}

  /** What {@link Main#main} does once the signal handlers are in place; ends the JVM. */
  static void run(String[] args) {
    Optional<String> limits = MachineLimits.problem();
    if (limits.isPresent()) {
      System.err.println("bitopk: " + limits.get());
      System.exit(ExitCode.BAD_INPUT);
    }
    System.setProperty("java.awt.headless", "true"); // report charts render off-screen
    boolean verbose = Arrays.asList(args).contains("--verbose");
    PrintStream out = System.out;
    PrintStream err = System.err;
    if (!verbose) {
      DriverLog log = DriverLog.capture();
      out = log.consoleOut();
      err = log.consoleErr();
    }
    Interruption.printTo(err);
    int code;
    try {
      code = execute(args, null, new PrintWriter(out, true), new PrintWriter(err, true));
    } catch (Throwable failure) {   // outside any command (e.g. a class that cannot be loaded): still one line
      code = Failures.report(failure, new PrintWriter(err, true), DriverLog.installed().flatMap(DriverLog::location),
          verbose);
    }
    DriverLog.installed().ifPresent(DriverLog::flush);
    if (code == 0 && System.getProperty("spark.yarn.app.id") != null) {
      // Inside a YARN ApplicationMaster (cluster deploy mode) the driver must return: System.exit, even with 0,
      // makes Spark report the application FAILED ("Shutdown hook called before final status was reported").
      return;
    }
    System.exit(code);
  }

  /** See {@link Main#execute}. */
  static int execute(String[] args, JavaSparkContext existing, PrintWriter out, PrintWriter err) {
    String[] effective = args;
    boolean report = args.length > 0 && (args[0].equals("report") || args[0].equals("experiment")
        || args[0].equals("evaluate-compressors") || args[0].equals("reproduction")
        || args[0].equals("time-to-accuracy"));
    if (!report && (args.length == 0 || !args[0].equals("train"))) {
      effective = new String[args.length + 1];
      effective[0] = "train";
      System.arraycopy(args, 0, effective, 1, args.length);
    }
    CommandLine root = new CommandLine(new Root());
    CommandLine trainCli = new CommandLine(existing == null ? new TrainCommand() : new TrainCommand(existing));
    // An instance, not a bundle name: under spark-submit picocli's class loader cannot see the application's classes.
    trainCli.setResourceBundle(new HelpTexts());
    root.addSubcommand("train", trainCli);
    root.addSubcommand("experiment", new CommandLine(new org.bitopk.lab.experiment.ExperimentCommand(existing,
        existing == null ? Interruption.REQUESTS : org.bitopk.job.run.StopRequests.NONE)));
    root.addSubcommand("reproduction", new CommandLine(new org.bitopk.lab.reproduction.ReproductionCommand()));
    root.addSubcommand("time-to-accuracy",
        new CommandLine(new org.bitopk.lab.baseline.TimeToAccuracyCommand(existing)));
    CommandLine reportCli = new CommandLine(new ReportCommand());
    reportCli.getCommandSpec().versionProvider(new Version());   // the report package knows nothing of this one
    root.addSubcommand("report", reportCli);
    CommandLine evaluateCli = new CommandLine(new EvaluateCompressorsCommand());
    evaluateCli.getCommandSpec().versionProvider(new Version());
    root.addSubcommand("evaluate-compressors", evaluateCli);
    root.setOut(out);
    root.setErr(err);
    root.setParameterExceptionHandler((ex, a) -> {
      ex.getCommandLine().getErr().println("bitopk: " + Failures.firstLine(ex) + " (see --help)");
      return ExitCode.BAD_INPUT;
    });
    boolean verbose = Arrays.asList(args).contains("--verbose");
    root.setExecutionExceptionHandler((ex, cl, parsed) ->
        Failures.report(ex, cl.getErr(), DriverLog.installed().flatMap(DriverLog::location), verbose));
    CommandLine train = root.getSubcommands().get("train");
    Optional<String> configFile = report ? Optional.empty() : ConfigFile.locate(effective);
    Optional<String> resumeDir = report ? Optional.empty() : ConfigFile.locate(effective, "--resume");
    Set<String> ignored = Set.of();
    if (configFile.isEmpty() && resumeDir.filter(dir -> !dir.isBlank()).isPresent()) {
      // --resume DIR reads DIR/config.json; where it ran and where it wrote are decided anew.
      configFile = Optional.of(resumeDir.get().replaceAll("/+$", "") + "/config.json");
      ignored = Set.of("master", "output", "overwrite");
    }
    if (configFile.isPresent()) {
      try {
        train.setDefaultValueProvider(ConfigFile.load(configFile.get(), train.getCommandSpec(), ignored,
            SparkSetup.hadoopConfiguration()));
      } catch (IllegalArgumentException e) {
        String message = e.getMessage();
        if (!ignored.isEmpty()) {
          message = message.replaceFirst("^--config:", "--resume:");
        }
        err.println("bitopk: " + message + " (see --help)");
        err.flush();
        return ExitCode.BAD_INPUT;
      }
    }
    int code = root.execute(effective);
    err.flush();
    out.flush();
    return code;
  }

  /** The root: {@code --help} and {@code --version}; commands are {@code train} and {@code report}. */
  @CommandLine.Command(name = "bitopk", mixinStandardHelpOptions = true, versionProvider = Version.class,
      description = "Bidirectional TopK sparsified data-parallel training on Apache Spark.")
  static final class Root implements Callable<Integer> {
    @Override
    public Integer call() {
      return ExitCode.OK;
    }
  }
}
