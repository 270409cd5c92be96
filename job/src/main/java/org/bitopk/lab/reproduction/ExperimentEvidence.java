package org.bitopk.lab.reproduction;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.output.MachineEnvironment;
import org.bitopk.job.output.RunDirectory;
import org.bitopk.job.report.RunMetrics;
import org.bitopk.job.spark.SparkSetup;
import org.bitopk.lab.experiment.ExperimentResults;
import org.bitopk.lab.experiment.Grid;
import org.bitopk.lab.experiment.GridPoint;
import org.jspecify.annotations.Nullable;

/**
 * A finished experiment directory, checked before a word of it is quoted: its grid.json re-expanded into
 * points, every point's run finished ({@code _SUCCESS}) with a config.json equal to what the point's settings
 * resolve to, results.csv agreeing row by row with the figures recomputed from the runs' metric lines, and
 * environment.json present (a figure without the machine and its load is not quotable). Anything else is
 * refused with one line naming the directory or file.
 */
final class ExperimentEvidence {
  static final String RESULTS_CSV = "results.csv";
  /** The counterexample's column (mean F − F* over the last half of the iterations), when the runner writes it. */
  static final String GAP_COLUMN = "mean_gap_last_half";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** config.json keys that say where a run ran or wrote, not what it computed. */
  private static final Set<String> NOT_SETTINGS = Set.of("run", "resolved", "output", "master");

  private final String directory;
  private final Grid grid;
  private final List<RunFigures> runs;
  private final List<JsonNode> environment;
  private final List<Path> charts;
  private final List<GridPoint> absent;

  private ExperimentEvidence(String directory, Grid grid, List<RunFigures> runs, List<GridPoint> absent,
      List<JsonNode> environment, List<Path> charts) {
    this.directory = directory;
    this.grid = grid;
    this.runs = List.copyOf(runs);
    this.absent = List.copyOf(absent);
    this.environment = List.copyOf(environment);
    this.charts = List.copyOf(charts);
  }

  /**
   * Reads and checks {@code directory}.
   *
   * @throws BadInputException one line naming the directory or file and what is wrong
   */
  static ExperimentEvidence read(String directory, Configuration conf) {
    return read(directory, conf, false);
  }

  /**
   * Reads and checks {@code directory}; with {@code absentAllowed}, points without a run directory are listed in
   * {@link #absent()} instead of refused (their rows come from elsewhere), as long as one point has its run.
   *
   * @throws BadInputException one line naming the directory or file and what is wrong
   */
  static ExperimentEvidence read(String directory, Configuration conf, boolean absentAllowed) {
    String flag = "--experiments: ";
    Path dir = new Path(directory);
    try {
      FileSystem fs = dir.getFileSystem(conf);
      if (!fs.exists(dir)) {
        throw new BadInputException(flag + directory + " does not exist");
      }
      Path gridPath = new Path(dir, ExperimentResults.GRID_FILE);
      if (!fs.exists(gridPath)) {
        throw new BadInputException(flag + directory + " is not an experiment directory (no "
            + ExperimentResults.GRID_FILE + "; expected the --out directory of the experiment command)");
      }
      Grid grid;
      try (InputStream in = fs.open(gridPath)) {
        grid = Grid.parse(gridPath.toString(), JSON.readTree(in));
      } catch (IllegalArgumentException | JsonProcessingException e) {
        throw new BadInputException(flag + gridPath + ": not a grid: " + firstLine(e), e);
      }
      String rerun = "finish it with: experiment --grid " + gridPath + " --out " + directory;
      List<RunFigures> runs = new ArrayList<>();
      List<GridPoint> absent = new ArrayList<>();
      for (GridPoint point : grid.points()) {
        Path runDir = new Path(dir, point.name());
        if (!fs.exists(runDir) && absentAllowed) {
          absent.add(point);
          continue;
        }
        if (!fs.exists(runDir)) {
          throw new BadInputException(flag + runDir + ": point '" + point.name() + "' of " + gridPath
              + " was never started; " + rerun);
        }
        if (!fs.exists(new Path(runDir, RunDirectory.SUCCESS))) {
          throw new BadInputException(flag + runDir + ": unfinished run (no " + RunDirectory.SUCCESS
              + "): running, killed or failed; " + rerun);
        }
        RunMetrics metrics;
        RunFigures figures;
        try {
          metrics = RunMetrics.read(runDir.toString(), conf);
          figures = RunFigures.of(point, metrics);   // a metric of the wrong type is named with file and line
        } catch (IllegalArgumentException e) {
          throw new BadInputException(flag + firstLine(e), e);
        }
        checkConfig(new Path(runDir, RunDirectory.CONFIG), metrics.config(), point, gridPath);
        runs.add(figures);
      }
      if (runs.isEmpty()) {
        throw new BadInputException(flag + directory + ": no point of " + gridPath + " has a run directory; "
            + rerun);
      }
      if (!fs.exists(new Path(dir, MachineEnvironment.FILE))) {
        throw new BadInputException(flag + new Path(dir, MachineEnvironment.FILE) + " is missing: the machine and "
            + "its load are unknown (the experiment command writes it at the end of every invocation)");
      }
      List<JsonNode> environment;
      try {
        environment = MachineEnvironment.readAll(fs, dir);
      } catch (IOException e) {
        throw new BadInputException(flag + firstLine(e), e);
      }
      if (environment.isEmpty()) {
        throw new BadInputException(flag + new Path(dir, MachineEnvironment.FILE) + " holds no entry");
      }
      checkResults(fs, new Path(dir, RESULTS_CSV), runs, absent);
      List<Path> charts = new ArrayList<>();
      for (FileStatus s : fs.listStatus(dir)) {
        String name = s.getPath().getName();
        if (s.isFile() && name.startsWith("compare") && name.endsWith(".png")) {
          charts.add(s.getPath());
        }
      }
      charts.sort(null);
      return new ExperimentEvidence(directory, grid, runs, absent, environment, charts);
    } catch (ChecksumException e) {
      throw changedAfterWriting(e);
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof ChecksumException c) {
        throw changedAfterWriting(c);
      }
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + directory + ": " + e.getMessage(), e);
    }
  }

  /**
   * Hadoop's local file system keeps a checksum beside every file it wrote ({@code .NAME.crc}): a file edited
   * afterwards no longer matches it, which is bad input like any other disagreement, not an I/O failure.
   */
  private static BadInputException changedAfterWriting(ChecksumException e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    String file = m.replaceFirst("^Checksum error: ", "").replaceFirst(" at \\d+.*$", "");
    return new BadInputException("--experiments: " + file + " was changed after it was written (its checksum "
        + "file ." + new Path(file).getName() + ".crc no longer matches)", e);
  }

  /**
   * The run's config.json against what its grid point resolves to with this version's defaults: the settings
   * of {@link FlagValues#configOf} as a run records them ({@link FlagValues#recorded}). A key the run lacks is
   * accepted only when the grid does not set it (a setting added after the run was made, whose default it then
   * had).
   */
  private static void checkConfig(Path file, ObjectNode actual, GridPoint point, Path gridPath) throws IOException {
    JsonNode expected = JSON.readTree(JSON.writeValueAsString(
        FlagValues.recorded(FlagValues.configOf(point.settings(), SparkSetup.hadoopConfiguration()))));
    Set<String> keys = new LinkedHashSet<>();
    expected.fieldNames().forEachRemaining(keys::add);
    actual.fieldNames().forEachRemaining(keys::add);
    keys.removeAll(NOT_SETTINGS);
    String prefix = "--experiments: " + file + " does not match point '" + point.name() + "' of " + gridPath + ": ";
    for (String key : keys) {
      JsonNode want = expected.get(key);
      JsonNode have = actual.get(key);
      if (have == null) {
        if (point.settings().containsKey(key)) {
          throw new BadInputException(prefix + "'" + key + "' is missing, the grid sets " + want);
        }
      } else if (want == null) {
        throw new BadInputException(prefix + "'" + key + "' is " + have + ", which no setting of the point gives");
      } else if (!sameValue(want, have)) {
        throw new BadInputException(prefix + "'" + key + "' is " + have + ", the grid's settings give " + want);
      }
    }
  }

  private static boolean sameValue(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  /**
   * Every row of results.csv against the run it names; every run must have its row. A row of an absent point
   * has no run to be checked against, and is not quoted.
   */
  private static void checkResults(FileSystem fs, Path file, List<RunFigures> runs, List<GridPoint> absent)
      throws IOException {
    String stale = " (rewrite it from the runs with: experiment --summarize " + file.getParent() + ")";
    if (!fs.exists(file)) {
      throw new BadInputException("--experiments: " + file + " is missing" + stale);
    }
    String text;
    try (InputStream in = fs.open(file)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    CsvTable csv = CsvTable.parse(file.toString(), text);
    Map<String, RunFigures> byName = new LinkedHashMap<>();
    for (RunFigures r : runs) {
      byName.put(r.point().name(), r);
    }
    Set<String> seen = new LinkedHashSet<>();
    for (Map<String, String> row : csv.rows()) {
      String name = row.getOrDefault("point", "");
      if (absent.stream().anyMatch(p -> p.name().equals(name))) {
        continue;
      }
      RunFigures run = byName.get(name);
      if (run == null) {
        throw new BadInputException("--experiments: " + file + " has a row for '" + name
            + "', which is not a point of grid.json" + stale);
      }
      if (!seen.add(name)) {
        throw new BadInputException("--experiments: " + file + " has two rows for '" + name + "'" + stale);
      }
      for (String column : csv.header()) {
        if (column.equals("point")) {
          continue;
        }
        Double figure = figure(run, column);
        String where = "--experiments: " + file + " row '" + name + "' column '" + column + "' is '" + row.get(column)
            + "', ";
        if (figure != null) {
          double value = csv.number(row, column);
          if (!close(value, figure)) {
            throw new BadInputException(where + "its run's metric lines give " + figure + stale);
          }
        } else {
          JsonNode setting = run.settings().get(column);
          String want = setting == null || setting.isNull() ? "" : setting.asText();
          if (!want.equals(row.get(column)) && !sameNumber(want, row.get(column))) {
            throw new BadInputException(where + "its run's config.json says '" + want + "'" + stale);
          }
        }
      }
    }
    for (String name : byName.keySet()) {
      if (!seen.contains(name)) {
        throw new BadInputException("--experiments: " + file + " has no row for the finished run '" + name + "'"
            + stale);
      }
    }
  }

  /** The recomputed figure of a results.csv column, or null when the column is a setting. */
  private static @Nullable Double figure(RunFigures r, String column) {
    return switch (column) {
      case "final_test_accuracy" -> r.finalAccuracy();
      case "best_test_accuracy" -> r.bestAccuracy();
      case "rounds" -> (double) r.rounds();
      case "wall_seconds" -> r.wallSeconds();
      case "up_bytes" -> (double) r.upBytes();
      case "down_bytes" -> (double) r.downBytes();
      case "down_bytes_delivered" -> (double) r.downBytesDelivered();
      case "down_agg_nnz_ratio" -> r.downNnzRatio();
      case GAP_COLUMN -> r.meanGapLastHalf();
      case "last_round_gap" -> r.lastRoundGap();
      default -> null;
    };
  }

  private static boolean close(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return Double.isNaN(a) && Double.isNaN(b);
    }
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.max(Math.abs(a), Math.abs(b)));
  }

  private static boolean sameNumber(String a, String b) {
    try {
      return new java.math.BigDecimal(a).compareTo(new java.math.BigDecimal(b)) == 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String firstLine(Exception e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    return m.strip().lines().findFirst().orElse(m);
  }

  /** The directory as given. */
  String directory() {
    return directory;
  }

  Grid grid() {
    return grid;
  }

  /** The finished runs, in grid order (one per point). */
  List<RunFigures> runs() {
    return runs;
  }

  /** The grid's points without a run directory (only when read with absent points allowed), in grid order. */
  List<GridPoint> absent() {
    return absent;
  }

  /** environment.json's entries, oldest first (one per invocation of the runner). */
  List<JsonNode> environment() {
    return environment;
  }

  /** The runner's compare-*.png charts in the directory. */
  List<Path> charts() {
    return charts;
  }

  /** The setting shared by every run, e.g. the number of epochs; empty when the runs differ in it. */
  Optional<String> common(String key) {
    Set<String> values = new LinkedHashSet<>();
    for (RunFigures r : runs) {
      values.add(r.setting(key, ""));
    }
    return values.size() == 1 ? Optional.of(values.iterator().next()) : Optional.empty();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s (%s, %d runs)", directory, grid.name(), runs.size());
  }
}
