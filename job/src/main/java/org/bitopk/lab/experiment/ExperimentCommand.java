package org.bitopk.lab.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.BadInputException;
import org.bitopk.job.checkpoint.CheckpointStore;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.TrainingDivergedException;
import org.bitopk.job.output.MachineEnvironment;
import org.bitopk.job.output.ProgressDisplay;
import org.bitopk.job.output.RunDirectory;
import org.bitopk.job.run.PreparedRun;
import org.bitopk.job.run.StopRequests;
import org.bitopk.job.run.TrainingRun;
import org.bitopk.job.spark.SparkSetup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code experiment}: runs every point of a grid into {@code <out>/<point>/} as ordinary runs, one after
 * another on one SparkContext, then summarizes them. Re-running the same command continues where it stopped:
 * finished points are skipped, points with a checkpoint are resumed, the others started.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Runs a grid of training runs (base config x axes x explicit points, JSON or YAML) into OUT/<point>/,",
        "one ordinary run each (its config.json reruns it with train --config). Resumable: finished points are",
        "skipped, unfinished ones with a checkpoint are resumed, the others started (over). Writes OUT/results.csv,",
        "OUT/results.md and OUT/compare-*.png at the end; --summarize OUT rewrites them alone."})
public final class ExperimentCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--grid", paramLabel = "FILE", description = "Grid file (.json, .yaml or .yml), e.g. "
      + "job/experiments/thesis-fmnist-mlp-quick.json.")
  String grid;

  @Option(names = "--out", paramLabel = "DIR", description = "Experiment directory URI: one run directory per point.")
  String out;

  @Option(names = "--summarize", paramLabel = "DIR",
      description = "Only (re)write DIR/results.csv, results.md and the charts from the finished points in DIR.")
  String summarize;

  @Option(names = "--list", description = "Only print the points of --grid and their settings; run nothing.")
  boolean list;

  @Option(names = "--master", paramLabel = "URL",
      description = "Spark master (default: the one spark-submit sets, else local[*]).")
  String master;

  @Option(names = "--quiet", description = "No per-run progress bar (the per-point lines remain).")
  boolean quiet;

  private final JavaSparkContext provided;
  private final StopRequests stops;

  public ExperimentCommand() {
    this(null);
  }

  /** For tests and embedding: runs on an existing context, which it leaves running. */
  public ExperimentCommand(JavaSparkContext existing) {
    this(existing, StopRequests.NONE);
  }

  /** Runs on {@code existing} (or its own context when null), stopping between rounds when {@code stops} asks. */
  public ExperimentCommand(JavaSparkContext existing, StopRequests stops) {
    this.provided = existing;
    this.stops = stops;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    Configuration conf = provided != null ? provided.hadoopConfiguration() : new Configuration();
    if (summarize != null) {
      if (grid != null || out != null) {
        throw usage("--summarize DIR takes no --grid or --out");
      }
      List<ExperimentResults.Row> rows;
      try {
        rows = ExperimentResults.write(summarize, conf);
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
      console.println("bitopk: " + rows.size() + " runs summarized into " + summarize + "/results.csv, results.md");
      return 0;
    }
    if (grid == null) {
      throw usage("--grid: needed (or --summarize DIR)");
    }
    Grid parsed;
    try {
      parsed = Grid.read(grid, conf);
    } catch (IllegalArgumentException e) {
      throw usage("--grid: " + e.getMessage());
    }
    if (list) {
      console.printf(Locale.ROOT, "%s: %d points%s%n", parsed.name(), parsed.points().size(),
          parsed.expectedRuntime() == null ? "" : ", expected runtime " + parsed.expectedRuntime());
      for (GridPoint p : parsed.points()) {
        console.println(p.name() + "  " + p.settings());
      }
      console.flush();
      return 0;
    }
    if (out == null) {
      throw usage("--out: needed, the experiment directory");
    }
    // From here on the grid writes: a signal stops it between two rounds (the round under way is cancelled).
    AtomicReference<JavaSparkContext> running = new AtomicReference<>();
    stops.deferTo(() -> Optional.ofNullable(running.get()).ifPresent(JavaSparkContext::cancelAllJobs));
    JavaSparkContext sc = null;
    int diverged;
    try {
      sc = provided != null ? provided : SparkSetup.start(SparkSetup.conf(master));
      running.set(sc);
      diverged = run(sc, parsed, out, !quiet && ProgressDisplay.terminalAttached(), console, stops::stopIfRequested);
    } catch (Exception e) {
      if (stops.requested()) {
        return stops.report(spec.commandLine().getErr(), whereStopped(parsed, out, conf), false);
      }
      throw e;
    } finally {
      if (sc != null && provided == null) {
        sc.stop();
      }
    }
    List<ExperimentResults.Row> rows = ExperimentResults.write(out, sc.hadoopConfiguration(), "--out");
    console.println("bitopk: " + rows.size() + " of " + parsed.points().size() + " points finished; results in "
        + out + "/results.md");
    console.flush();
    if (stops.requested()) {
      return stops.report(spec.commandLine().getErr(), " after the last point; the experiment finished: results in "
          + out + "/results.md", true);
    }
    if (diverged > 0) {
      spec.commandLine().getErr().println("bitopk: " + diverged + " point(s) diverged (see their lines above)");
      return 1;
    }
    return 0;
  }

  /**
   * Runs the points that are not finished, in grid order, and writes {@code out}/grid.json first. One line per
   * point on {@code console}. A point that diverges is reported and skipped, so one learning rate too large
   * does not stop a grid of hours; any other failure propagates. Appends this invocation's machine and load to
   * {@code out}/environment.json.
   *
   * @return the number of points that diverged
   */
  public static int run(JavaSparkContext sc, Grid grid, String out, boolean progress, PrintWriter console)
      throws IOException {
    return run(sc, grid, out, progress, console, () -> { });
  }

  /** As {@link #run(JavaSparkContext, Grid, String, boolean, PrintWriter)}, stopping at {@code safePoint}s. */
  static int run(JavaSparkContext sc, Grid grid, String out, boolean progress, PrintWriter console,
      Runnable safePoint) throws IOException {
    Path dir = new Path(out);
    FileSystem fs = dir.getFileSystem(sc.hadoopConfiguration());
    // Every point is checked (settings, data, model, shards, its directory) before the first one runs.
    for (GridPoint point : grid.points()) {
      Path runDir = fs.makeQualified(new Path(dir, point.name()));
      if (!fs.exists(new Path(runDir, RunDirectory.SUCCESS))) {
        try {
          PreparedRun.check(pointConfig(fs, runDir, point, progress), sc.hadoopConfiguration());
        } catch (IllegalArgumentException e) {
          throw new BadInputException("point " + point.name() + ": " + e.getMessage(), e);
        }
      }
    }
    FileSystem writing = ExperimentDirectory.claim(fs, dir, grid, "--out");
    try (OutputStream stream = writing.create(new Path(dir, ExperimentResults.GRID_FILE), true)) {
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(stream, grid.source());
    }
    MachineEnvironment environment = MachineEnvironment.start("experiment --grid " + grid.name() + " --out " + out);
    int n = grid.points().size();
    int diverged = 0;
    for (int i = 0; i < n; i++) {
      safePoint.run();   // between two points
      GridPoint point = grid.points().get(i);
      Path runDir = fs.makeQualified(new Path(dir, point.name()));
      String prefix = String.format(Locale.ROOT, "[%d/%d] %s: ", i + 1, n, point.name());
      if (fs.exists(new Path(runDir, RunDirectory.SUCCESS))) {
        console.println(prefix + "finished earlier, skipped");
        console.flush();
        continue;
      }
      TrainingConfig config = pointConfig(fs, runDir, point, progress);
      console.println(prefix + (config.resume() ? "resuming from its newest checkpoint"
          : config.overwrite() ? "starting over (its earlier run stopped before a checkpoint)" : "starting"));
      console.flush();
      long start = System.nanoTime();
      TrainingRun.Result result;
      try {
        result = TrainingRun.execute(sc, config, progress, List.of(), safePoint);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("point " + point.name() + ": " + e.getMessage(), e);
      } catch (TrainingDivergedException e) {
        console.println(prefix + "diverged, not finished: " + e.getMessage().lines().findFirst().orElse(""));
        console.flush();
        diverged++;
        continue;
      }
      Double accuracy = result.summary().finalTestAccuracy();
      Double gap = result.summary().finalOptimalityGap();
      console.println(prefix + String.format(Locale.ROOT, "done in %.1f s, %s",
          (System.nanoTime() - start) / 1e9, gap != null && (accuracy == null || accuracy.isNaN())
              ? String.format(Locale.ROOT, "F - F* after the last round %.4f", gap)
              : "final test accuracy " + (accuracy == null || accuracy.isNaN() ? "n/a"
                  : String.format(Locale.ROOT, "%.2f %%", 100 * accuracy))));
      console.flush();
    }
    environment.finishInto(writing, dir);
    return diverged;
  }

  /**
   * The interruption line's end, from what the experiment directory holds: how many points finished, what became
   * of the point under way, and that the same command continues.
   */
  static String whereStopped(Grid grid, String out, Configuration conf) {
    String advice = ": run the same command again to continue (finished points are skipped, those with a "
        + "checkpoint resumed, the others started over)";
    try {
      Path dir = new Path(out);
      FileSystem fs = dir.getFileSystem(conf);
      int finished = 0;
      String current = "";
      for (GridPoint point : grid.points()) {
        Path runDir = new Path(dir, point.name());
        if (fs.exists(new Path(runDir, RunDirectory.SUCCESS))) {
          finished++;
        } else if (current.isEmpty() && fs.exists(runDir)) {
          int checkpoints = CheckpointStore.in(fs, runDir, 2).listNewestFirst().size();
          current = ", point " + point.name() + (checkpoints > 0 ? " keeps " + checkpoints + " checkpoint(s)"
              : " has no checkpoint");
        }
      }
      return "; " + finished + " of " + grid.points().size() + " points of " + out + " finished" + current + advice;
    } catch (IOException | RuntimeException e) {
      return "; the experiment " + out + " is unfinished" + advice;
    }
  }

  /** How a point that is not finished runs now: started, resumed from its newest checkpoint, or started over. */
  private static TrainingConfig pointConfig(FileSystem fs, Path runDir, GridPoint point, boolean progress)
      throws IOException {
    boolean resume = fs.exists(runDir) && CheckpointStore.in(fs, runDir, 2).latest().isPresent();
    // A run of this point that died before its first checkpoint has nothing to resume from: the runner owns
    // its point directories, so it starts the point over (the run lease still refuses a run that is alive).
    boolean restart = !resume && fs.exists(new Path(runDir, RunDirectory.CONFIG));
    return FlagValues.configOf(point.settings(), SparkSetup.hadoopConfiguration()).toBuilder().output(runDir.toString()).resume(resume)
        .overwrite(restart).quiet(!progress).build();
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
