package org.bitopk.job.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.capture.CaptureFiles;
import org.bitopk.job.checkpoint.Checkpoint;
import org.bitopk.job.checkpoint.CheckpointListener;
import org.bitopk.job.checkpoint.CheckpointStore;
import org.bitopk.job.checkpoint.ConfigDigest;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.engine.RunPlan;
import org.bitopk.job.engine.RunSummary;
import org.bitopk.job.engine.Trainer;
import org.bitopk.job.engine.VectorCapture;
import org.bitopk.job.output.AtomicFiles;
import org.bitopk.job.output.MetricLines;
import org.bitopk.job.output.ProgressDisplay;
import org.bitopk.job.output.RunDirectory;
import org.bitopk.job.output.RunLease;
import org.bitopk.job.output.SummaryText;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.report.RunReport;

/**
 * One training run end to end on a given SparkContext: a {@link PreparedRun} (everything checked, nothing
 * written) whose output directory is claimed ({@link RunLease}), then problem, driver loop, model, summary,
 * report and {@code _SUCCESS} last. The CLI and the tests both go through here.
 *
 * <p>A new run that fails before recording a round removes what it wrote, so the same command can be run
 * again; one that fails later stays an unfinished run (resumable from its checkpoints). Final files are
 * written atomically: a failure never leaves a truncated one under its final name.
 */
public final class TrainingRun {
  /** The newest checkpoints kept; two, so a damaged newest one still leaves one to resume from. */
  static final int CHECKPOINTS_KEPT = PreparedRun.CHECKPOINTS_KEPT;

  /** What a finished run produced. */
  public record Result(RunSummary summary, String output, String runId, String summaryText) {}

  /**
   * How a run talks to its user: the stream of the progress bar (empty: no bar), extra listeners, and where
   * one-line warnings go (without the {@code bitopk: warning: } prefix, which the consumer adds).
   */
  public record Options(Optional<PrintStream> progress, List<RunListener> listeners, Consumer<String> warnings,
      Runnable safePoint) {
    public Options {
      listeners = List.copyOf(listeners);
    }

    /** Options whose run is never asked to stop from outside. */
    public Options(Optional<PrintStream> progress, List<RunListener> listeners, Consumer<String> warnings) {
      this(progress, listeners, warnings, () -> { });
    }
  }

  private TrainingRun() {}

  /**
   * Checks, claims the output directory and trains (for tests and embedding; the CLI does the same steps
   * itself, checking before it starts Spark). {@code progress} enables the console bar on stderr.
   *
   * @throws IllegalArgumentException for input that cannot be used (see {@link PreparedRun#check}), with a
   *     message naming the flag
   */
  public static Result execute(JavaSparkContext sc, TrainingConfig config, boolean progress,
      List<RunListener> extraListeners) throws IOException {
    return execute(sc, PreparedRun.check(config, sc.hadoopConfiguration()), progress, extraListeners);
  }

  /**
   * As {@link #execute(JavaSparkContext, TrainingConfig, boolean, List)} for a configuration whose table
   * input is read by {@code table} (Spark ML's fit hands over its DataFrame this way).
   */
  public static Result execute(JavaSparkContext sc, TrainingConfig config, TableLoader table,
      boolean progress, List<RunListener> extraListeners) throws IOException {
    return execute(sc, PreparedRun.check(config, sc.hadoopConfiguration()).withTableLoader(table), progress,
        extraListeners);
  }

  /**
   * As {@link #execute(JavaSparkContext, TrainingConfig, boolean, List)}, stopping at {@code safePoint} (between
   * rounds, and before the first) when asked to from outside.
   */
  public static Result execute(JavaSparkContext sc, TrainingConfig config, boolean progress,
      List<RunListener> extraListeners, Runnable safePoint) throws IOException {
    return execute(sc, PreparedRun.check(config, sc.hadoopConfiguration()), progress, extraListeners, safePoint);
  }

  private static Result execute(JavaSparkContext sc, PreparedRun prepared, boolean progress,
      List<RunListener> extraListeners) throws IOException {
    return execute(sc, prepared, progress, extraListeners, () -> { });
  }

  private static Result execute(JavaSparkContext sc, PreparedRun prepared, boolean progress,
      List<RunListener> extraListeners, Runnable safePoint) throws IOException {
    Consumer<String> warnings = w -> System.err.println("bitopk: warning: " + w);
    PreparedRun read = prepared.withData(sc);   // a table that cannot be used leaves the directory untouched
    try (RunLease lease = read.claim(warnings)) {
      return execute(sc, read, lease, new Options(progress ? Optional.of(System.err) : Optional.empty(),
          extraListeners, warnings, safePoint));
    }
  }

  /** Trains a prepared run in the directory it claimed. */
  public static Result execute(JavaSparkContext sc, PreparedRun checked, RunLease lease, Options options)
      throws IOException {
    PreparedRun prepared = checked;
    FileSystem fs = lease.fileSystem();
    Path path = lease.directory();
    Optional<Checkpoint> resumeFrom = prepared.checkpoint();
    String runId = prepared.runId();
    RunDirectory dir = resumeFrom.isPresent()
        ? RunDirectory.resume(fs, path, runId, resumeFrom.get().iteration())
        : RunDirectory.start(fs, path);
    boolean finished = false;
    try {
      prepared = checked.withData(sc);   // a table input is read by the executors now that Spark runs
    } catch (RuntimeException e) {
      if (resumeFrom.isEmpty()) {
        dir.discardIfNothingRecorded();
      } else {
        dir.closeQuietly();
      }
      throw e;
    }
    try (TrainingProblem<?> problem = prepared.problem(sc)) {
      TrainingConfig config = prepared.config();
      RunPlan plan = RunPlans.of(config, problem, sc.defaultParallelism(), config.checkpointEvery() > 0
          ? ", the last good checkpoint is kept in " + path + "/checkpoints" : "");
      MetricLines.Continuation continuation = dir.continuation();
      if (resumeFrom.isPresent()) {
        warnAbout(continuation, path, resumeFrom.get().iteration(), options.warnings());
      }
      lease.check();
      dir.writeConfig(recordedConfig(sc, prepared, problem, plan, path, continuation));

      List<RunListener> listeners = new ArrayList<>();
      listeners.add(new LeaseCheck(lease));
      listeners.add(dir);
      if (config.checkpointEvery() > 0) {
        listeners.add(new CheckpointListener(CheckpointStore.in(fs, path, CHECKPOINTS_KEPT).checkedBy(lease::check),
            config.checkpointEvery(), prepared.totalIterations(), ConfigDigest.of(FlagValues.of(config)), dir::sync));
      }
      long rounds = prepared.totalIterations();
      Optional<ProgressDisplay> display = options.progress().map(stream -> new ProgressDisplay(rounds, stream));
      display.ifPresent(listeners::add);
      listeners.addAll(options.listeners());
      listeners.add(new SafePoint(options.safePoint()));   // last: after the round's metric line and checkpoint
      try {
        Result result = run(sc, prepared, plan, problem, listeners, dir, lease, options);
        finished = true;
        return result;
      } finally {
        display.ifPresent(ProgressDisplay::close);
      }
    } finally {
      if (!finished) {
        if (resumeFrom.isEmpty()) {
          dir.discardIfNothingRecorded();
        } else {
          dir.closeQuietly();
        }
      }
    }
  }

  private static <S> Result run(JavaSparkContext sc, PreparedRun prepared, RunPlan plan, TrainingProblem<S> problem,
      List<RunListener> listeners, RunDirectory dir, RunLease lease, Options options) throws IOException {
    ModelSaver saver = new ModelSaver(problem, dir, lease);
    List<RunListener> all = new ArrayList<>(listeners);
    all.add(saver);
    Trainer<S> trainer = new Trainer<>(sc, plan, problem, prepared.runId(), all);
    prepared.checkpoint().ifPresent(checkpoint -> trainer.resumeFrom(checkpoint.toResumePoint()));
    if (plan.captureRounds().length > 0) {
      VectorCapture files = CaptureFiles.writer(lease.fileSystem(), dir.path(), plan.workers(),
          prepared.config().densityUp(), plan.uplink().targetK());
      trainer.captureTo((round, worker, learningRate, compensated) -> {
        lease.check();
        files.capture(round, worker, learningRate, compensated);
      });
    }
    options.safePoint().run();   // asked to stop while the run was set up: stop before its first round
    RunSummary summary = trainer.run();
    String text = SummaryText.render(summary, dir.path().toString(), saver.file, data(prepared),
        dir.continuation().missingIterations());
    lease.check();
    dir.writeText(RunDirectory.SUMMARY, text);
    dir.close(); // the metrics must be complete on disk before the report reads them
    lease.check();
    writeReport(dir, options.warnings());
    lease.check();
    dir.markSuccess();
    return new Result(summary, dir.path().toString(), prepared.runId(), text);
  }

  /** What the summary says about the data read. */
  private static SummaryText.Data data(PreparedRun prepared) {
    return new SummaryText.Data(prepared.trainExamples(), prepared.testExamples(), prepared.shardSizes());
  }

  /**
   * config.json: the settings the run is carried out with (for a resumed run, those it continues and will
   * finish with, e.g. a raised --max-iterations), the run id and what was resolved: the problem, data sizes,
   * iterations, Spark, and for resumed runs when they were resumed and which earlier rounds lack metrics.
   */
  private static Map<String, Object> recordedConfig(JavaSparkContext sc, PreparedRun prepared,
      TrainingProblem<?> problem, RunPlan plan, Path path, MetricLines.Continuation continuation) {
    Map<String, Object> written = new LinkedHashMap<>(FlagValues.recorded(prepared.config()));
    written.put("output", path.toString());
    written.put("run", prepared.runId());
    Map<String, Object> resolved = new LinkedHashMap<>();
    resolved.put("problem", problem.name());
    resolved.putAll(problem.describe());
    resolved.put("dimension", problem.objectiveFactory().dimension());
    resolved.put("statistics", problem.objectiveFactory().statisticsIndices().length);
    if (prepared.trainExamples() >= 0) {
      resolved.put("train_examples", prepared.trainExamples());
      resolved.put("test_examples", prepared.testExamples());
      resolved.put("shard_sizes", prepared.shardSizes());
    }
    resolved.put(InputFingerprint.KEY, InputFingerprint.recorded(prepared.previousConfig(), prepared.config(),
        sc.hadoopConfiguration()));
    resolved.put("iterations_per_epoch", prepared.iterationsPerEpoch());
    resolved.put("tasks", plan.tasks());
    resolved.put("uplink_k", plan.uplink().targetK());
    resolved.put("downlink", plan.downlink().describe());
    resolved.put("total_iterations", plan.totalRounds());
    resolved.put("spark_master", sc.master());
    resolved.put("default_parallelism", sc.defaultParallelism());
    JsonNode previous = prepared.previousConfig().map(config -> config.path("resolved")).orElse(null);
    String now = Instant.now().toString();
    resolved.put("started", previous != null && previous.hasNonNull("started") ? previous.get("started").asText() : now);
    if (prepared.checkpoint().isPresent()) {
      List<Object> resumes = new ArrayList<>();
      if (previous != null && previous.path("resumed").isArray()) {
        previous.path("resumed").forEach(n -> resumes.add(new ObjectMapper().convertValue(n, Map.class)));
      }
      Map<String, Object> resume = new LinkedHashMap<>();
      resume.put("at", now);
      resume.put("from_iteration", prepared.checkpoint().get().iteration());
      resumes.add(resume);
      resolved.put("resumed", resumes);
      if (!continuation.complete()) {
        resolved.put("missing_iteration_lines", continuation.missingIterations());
      }
    }
    written.put("resolved", resolved);
    return written;
  }

  private static void warnAbout(MetricLines.Continuation c, Path path, int from, Consumer<String> warnings) {
    if (!c.complete()) {
      warnings.accept(path + "/" + RunDirectory.ITERATIONS + " lacks the lines of iteration(s) "
          + String.join(", ", c.missingIterations()) + " (of 0-" + (from - 1) + " before the checkpoint): the "
          + "finished run keeps this gap (recorded in config.json and summary.txt)");
    }
    if (c.foreignLines() > 0) {
      warnings.accept("dropped " + c.foreignLines() + " metric line(s) of another run from " + path + "/"
          + RunDirectory.METRICS);
    }
  }

  /** report.png / report.html; charts that cannot be drawn are a warning, a failure to write them is a failure. */
  private static void writeReport(RunDirectory dir, Consumer<String> warnings) {
    try {
      RunReport.write(dir.path().toString(), dir.fileSystem());
    } catch (UncheckedIOException e) {
      throw e;
    } catch (RuntimeException e) {
      warnings.accept("no report for " + dir.path() + ": " + e.getMessage());
    }
  }

  /**
   * Between rounds, once the round's files are complete: where a request to stop from outside (a signal, whose
   * handler also cancels the round's Spark job under way) is carried out by throwing. A request after the last
   * round's safe point lets the run complete: its final files are written and {@code _SUCCESS} last.
   */
  private static final class SafePoint implements RunListener {
    private final Runnable check;

    SafePoint(Runnable check) {
      this.check = check;
    }

    @Override
    public void afterRound(DriverState state) {
      check.run();
    }
  }

  /** Stops the run as soon as another run has taken its directory over. */
  private static final class LeaseCheck implements RunListener {
    private final RunLease lease;

    LeaseCheck(RunLease lease) {
      this.lease = lease;
    }

    @Override
    public void onIteration(IterationRecord record, DriverState state) {
      lease.check();
    }
  }

  /**
   * Saves the final model at the end of the run, while the master parameters are at hand: into a hidden
   * staging directory, then renamed into place, so a failure leaves no partial model under its final name.
   */
  private static final class ModelSaver implements RunListener {
    private final TrainingProblem<?> problem;
    private final RunDirectory dir;
    private final RunLease lease;
    private String file = "-";

    ModelSaver(TrainingProblem<?> problem, RunDirectory dir, RunLease lease) {
      this.problem = problem;
      this.dir = dir;
      this.lease = lease;
    }

    @Override
    public void onFinish(RunSummary summary, DriverState state) {
      lease.check();
      FileSystem fs = dir.fileSystem();
      Path staging = new Path(dir.path(), AtomicFiles.TEMPORARY_PREFIX + "model-" + UUID.randomUUID().toString()
          .substring(0, 8));
      try {
        try {
          String name = problem.saveModel(state.modelParameters(), fs, staging);
          AtomicFiles.replace(fs, new Path(staging, name), new Path(dir.path(), name));
          file = name;
        } catch (FSError e) {
          throw AtomicFiles.unwrap(e);
        } finally {
          try {
            fs.delete(staging, true);
          } catch (IOException | RuntimeException | FSError ignored) {
            // removed at the next start
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot save the model into " + dir.path() + ": " + e.getMessage(), e);
      }
    }
  }
}
