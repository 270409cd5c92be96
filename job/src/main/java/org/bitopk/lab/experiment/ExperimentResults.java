package org.bitopk.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.RunDirectory;
import org.bitopk.job.report.CompareReport;
import org.bitopk.job.report.MetricTable;
import org.bitopk.job.report.RunMetrics;

/**
 * The summary of an experiment directory, computed from the finished runs' own files only (config.json and
 * metrics/*.jsonl), so it can be rebuilt at any time: {@code results.csv} (one row per finished run),
 * {@code results.md} (final accuracy by mode, the downlink ratio by workers, every run) and comparison charts.
 */
public final class ExperimentResults {
  /** The grid as run, written next to the points so that a summary needs nothing else. */
  public static final String GRID_FILE = "grid.json";
  static final double MIB = 1024.0 * 1024.0;
  private static final ObjectMapper JSON = new ObjectMapper();
  /** config.json keys that say where a run ran or wrote, not what it computed. */
  private static final Set<String> NOT_SETTINGS = Set.of("run", "resolved", "output", "master");

  /**
   * The figures of one finished run. {@code lastRoundGap} and {@code meanGapLastHalf} are F − F* (the metric
   * lines' {@code optimality_gap}, F(x_t) − F* at the start of round t) of the last round, T − 1, and averaged
   * over rounds ⌊T/2⌋ … T − 1 of the T rounds,
   * NaN for a problem whose optimum is unknown (the networks); accuracies are NaN for the counterexample.
   */
  public record Row(GridPoint point, Map<String, String> settings, double finalAccuracy, double bestAccuracy,
      long rounds, double wallSeconds, long upBytes, long downBytes, long downBytesDelivered,
      double downNnzRatio, double lastRoundGap, double meanGapLastHalf) {}

  private ExperimentResults() {}

  /**
   * Reads {@code out}/grid.json and every finished point, writes results.csv, results.md and the charts.
   *
   * @throws IllegalArgumentException when {@code out} is not an experiment directory
   */
  public static List<Row> write(String out, Configuration conf) {
    return write(out, conf, "--summarize");
  }

  /** As {@link #write(String, Configuration)}; {@code flag} names the directory in a refusal. */
  static List<Row> write(String out, Configuration conf, String flag) {
    Path dir = new Path(out);
    try {
      FileSystem plain = dir.getFileSystem(conf);
      FileSystem fs = plain;
      Path gridPath = new Path(dir, GRID_FILE);
      if (!fs.exists(gridPath)) {
        throw new IllegalArgumentException("--summarize: " + out + " is not an experiment directory (no "
            + GRID_FILE + ")");
      }
      JsonNode tree;
      try (InputStream in = fs.open(gridPath)) {
        tree = JSON.readTree(in);
      }
      Grid grid = Grid.parse(gridPath.toString(), tree);
      fs = ExperimentDirectory.claim(plain, dir, grid, flag);
      List<Row> rows = new ArrayList<>();
      List<String> missing = new ArrayList<>();
      for (GridPoint point : grid.points()) {
        Path runDir = new Path(dir, point.name());
        if (fs.exists(new Path(runDir, RunDirectory.SUCCESS))) {
          rows.add(row(point, RunMetrics.read(runDir.toString(), conf)));
        } else {
          missing.add(point.name());
        }
      }
      writeText(fs, new Path(dir, ExperimentDirectory.RESULTS_CSV), csv(rows));
      writeText(fs, new Path(dir, ExperimentDirectory.RESULTS_MD), markdown(grid, rows, missing));
      writeCharts(grid, rows, dir, fs);
      return rows;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot summarize " + out + ": " + e.getMessage(), e);
    }
  }

  /** The figures of one run, from its metric lines. */
  static Row row(GridPoint point, RunMetrics run) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = run.config().fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!NOT_SETTINGS.contains(e.getKey())) {
        settings.put(e.getKey(), e.getValue().isNull() ? "" : e.getValue().asText());
      }
    }
    MetricTable it = run.iterations();
    MetricTable ep = run.epochs();
    double[] accuracy = ep.column("test_accuracy");
    double best = Double.NaN;
    for (double a : accuracy) {
      if (!Double.isNaN(a) && (Double.isNaN(best) || a > best)) {
        best = a;
      }
    }
    double ratioSum = 0;
    int ratioCount = 0;
    double[] downNnz = it.column("down_nnz");
    double[] aggNnz = it.column("agg_nnz");
    for (int i = 0; i < downNnz.length; i++) {
      if (aggNnz[i] > 0) {
        ratioSum += downNnz[i] / aggNnz[i];
        ratioCount++;
      }
    }
    double[] gaps = it.column("optimality_gap");
    return new Row(point, settings, ep.last("test_accuracy"), best, it.size(), sum(it.column("time_total_ms")) / 1000,
        (long) sum(it.column("up_bytes")), (long) sum(it.column("down_bytes")),
        (long) sum(it.column("down_bytes_delivered")), ratioCount == 0 ? Double.NaN : ratioSum / ratioCount,
        it.last("optimality_gap"), meanOfSecondHalf(gaps));
  }

  /** Mean of values[⌊n/2⌋ …], NaN when any is missing (no optimum known) or there are none. */
  static double meanOfSecondHalf(double[] values) {
    int from = values.length / 2;
    if (from == values.length) {
      return Double.NaN;
    }
    double s = 0;
    for (int i = from; i < values.length; i++) {
      if (Double.isNaN(values[i])) {
        return Double.NaN;
      }
      s += values[i];
    }
    return s / (values.length - from);
  }

  private static double sum(double[] values) {
    double s = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        s += v;
      }
    }
    return s;
  }

  static final List<String> FIGURES = List.of("final_test_accuracy", "best_test_accuracy", "rounds",
      "wall_seconds", "up_bytes", "down_bytes", "down_bytes_delivered", "down_agg_nnz_ratio", "last_round_gap",
      "mean_gap_last_half");

  static String csv(List<Row> rows) {
    Set<String> keys = new LinkedHashSet<>();
    for (Row r : rows) {
      keys.addAll(r.settings().keySet());
    }
    StringBuilder b = new StringBuilder("point");
    for (String k : keys) {
      b.append(',').append(k);
    }
    for (String f : FIGURES) {
      b.append(',').append(f);
    }
    b.append('\n');
    for (Row r : rows) {
      b.append(csvField(r.point().name()));
      for (String k : keys) {
        b.append(',').append(csvField(r.settings().getOrDefault(k, "")));
      }
      b.append(',').append(number(r.finalAccuracy())).append(',').append(number(r.bestAccuracy()))
          .append(',').append(r.rounds()).append(',').append(number(r.wallSeconds()))
          .append(',').append(r.upBytes()).append(',').append(r.downBytes())
          .append(',').append(r.downBytesDelivered()).append(',').append(number(r.downNnzRatio()))
          .append(',').append(number(r.lastRoundGap())).append(',').append(number(r.meanGapLastHalf())).append('\n');
    }
    return b.toString();
  }

  private static String number(double v) {
    return Double.isNaN(v) ? "" : Double.toString(v);
  }

  private static String csvField(String s) {
    return s.contains(",") || s.contains("\"") || s.contains("\n") ? '"' + s.replace("\"", "\"\"") + '"' : s;
  }

  static String markdown(Grid grid, List<Row> rows, List<String> missing) {
    StringBuilder b = new StringBuilder("# ").append(grid.name()).append("\n\n");
    if (grid.description() != null) {
      b.append(grid.description()).append("\n\n");
    }
    b.append(rows.size()).append(" of ").append(grid.points().size()).append(" points finished");
    b.append(missing.isEmpty() ? ".\n\n" : "; not finished: " + String.join(", ", missing) + ".\n\n");
    boolean gaps = rows.stream().anyMatch(r -> !Double.isNaN(r.meanGapLastHalf()));
    boolean accuracies = rows.isEmpty() || rows.stream().anyMatch(r -> !Double.isNaN(r.finalAccuracy()));
    if (accuracies) {
      modeTable(grid, rows, b, "Final test accuracy (%)", r -> percent(r.finalAccuracy()));
    }
    if (gaps) {
      modeTable(grid, rows, b, "Mean F − F* over the last half of the rounds",
          r -> gap(r.meanGapLastHalf()));
    }
    ratioTable(grid, rows, b);
    b.append("## Every run\n\n| point | final acc. (%) | best acc. (%) | rounds | wall s | up MiB | down MiB (one copy) "
        + "| down MiB delivered | nnz(down)/nnz(agg) |").append(gaps ? " last-round F − F* | mean F − F*, last half |" : "")
        .append("\n|---|---|---|---|---|---|---|---|---|").append(gaps ? "---|---|" : "").append('\n');
    for (Row r : rows) {
      b.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %.1f | %.3f | %.3f | %.3f | %s |",
          r.point().name(), percent(r.finalAccuracy()), percent(r.bestAccuracy()), r.rounds(), r.wallSeconds(),
          r.upBytes() / MIB, r.downBytes() / MIB, r.downBytesDelivered() / MIB, ratio(r.downNnzRatio())));
      if (gaps) {
        b.append(' ').append(gap(r.lastRoundGap())).append(" | ").append(gap(r.meanGapLastHalf())).append(" |");
      }
      b.append('\n');
    }
    return b.toString();
  }

  /**
   * A figure (final accuracy, the counterexample's mean gap) with one column per mode and one row per
   * combination of the other varying keys. A key that the mode determines within a row (the learning rate
   * tuned per mode) is shown in the cell instead.
   */
  private static void modeTable(Grid grid, List<Row> rows, StringBuilder b, String title,
      java.util.function.Function<Row, String> figure) {
    List<String> rowKeys = grid.rowKeys();
    List<String> cellKeys = new ArrayList<>(grid.varyingKeys());
    cellKeys.remove("mode");
    cellKeys.removeAll(rowKeys);
    List<String> modes = new ArrayList<>();
    for (GridPoint p : grid.points()) {
      String mode = p.settings().getOrDefault("mode", "bidirectional");
      if (!modes.contains(mode)) {
        modes.add(mode);
      }
    }
    Map<String, Map<String, String>> table = new LinkedHashMap<>();
    for (GridPoint p : grid.points()) {
      table.computeIfAbsent(key(p, rowKeys), k -> new LinkedHashMap<>());
    }
    for (Row r : rows) {
      StringBuilder cell = new StringBuilder(figure.apply(r));
      if (!cellKeys.isEmpty()) {
        List<String> notes = new ArrayList<>();
        for (String k : cellKeys) {
          notes.add(k + " " + r.point().settings().getOrDefault(k, "default"));
        }
        cell.append(" (").append(String.join(", ", notes)).append(')');
      }
      table.get(key(r.point(), rowKeys)).put(r.point().settings().getOrDefault("mode", "bidirectional"), cell.toString());
    }
    b.append("## ").append(title).append("\n\n| ");
    b.append(rowKeys.isEmpty() ? " " : String.join(" | ", rowKeys)).append(" |");
    for (String m : modes) {
      b.append(' ').append(m).append(" |");
    }
    b.append("\n|").append("---|".repeat(Math.max(1, rowKeys.size()) + modes.size())).append('\n');
    for (Map.Entry<String, Map<String, String>> e : table.entrySet()) {
      b.append("| ").append(e.getKey().isEmpty() ? "all" : e.getKey()).append(" |");
      for (String m : modes) {
        b.append(' ').append(e.getValue().getOrDefault(m, "–")).append(" |");
      }
      b.append('\n');
    }
    b.append('\n');
  }

  private static String key(GridPoint p, List<String> keys) {
    List<String> parts = new ArrayList<>();
    for (String k : keys) {
      parts.add(p.settings().getOrDefault(k, "default"));
    }
    return String.join(" | ", parts);
  }

  /** Mean nnz(downlink)/nnz(aggregate) of the bidirectional runs by number of workers, next to 1/P. */
  private static void ratioTable(Grid grid, List<Row> rows, StringBuilder b) {
    Map<Integer, List<Row>> byWorkers = new TreeMap<>();
    for (Row r : rows) {
      if ("bidirectional".equals(r.settings().get("mode")) && !Double.isNaN(r.downNnzRatio())) {
        byWorkers.computeIfAbsent(Integer.parseInt(r.settings().get("workers")), w -> new ArrayList<>()).add(r);
      }
    }
    if (byWorkers.isEmpty()) {
      return;
    }
    boolean reference = !grid.referenceDownlinkRatio().isEmpty();
    b.append("## Downlink: mean nnz(downlink) / nnz(aggregate), bidirectional runs\n\n"
        + "The aggregate is the sum of the P sparse uplink vectors; the server sends TopK of it (plus its residual).\n\n"
        + "| workers P | runs | mean ratio | 1/P |").append(reference ? " published |" : "")
        .append(" down MiB delivered (mean) |\n|---|---|---|---|").append(reference ? "---|" : "").append("---|\n");
    for (Map.Entry<Integer, List<Row>> e : byWorkers.entrySet()) {
      double ratio = 0;
      double delivered = 0;
      for (Row r : e.getValue()) {
        ratio += r.downNnzRatio();
        delivered += r.downBytesDelivered();
      }
      int n = e.getValue().size();
      b.append(String.format(Locale.ROOT, "| %d | %d | %s | %.4f |", e.getKey(), n, ratio(ratio / n),
          1.0 / e.getKey()));
      if (reference) {
        Double published = grid.referenceDownlinkRatio().get(e.getKey());
        b.append(' ').append(published == null ? "–" : ratio(published)).append(" |");
      }
      b.append(String.format(Locale.ROOT, " %.3f |%n", delivered / n / MIB));
    }
    b.append('\n');
  }

  private static String percent(double accuracy) {
    return Double.isNaN(accuracy) ? "n/a" : String.format(Locale.ROOT, "%.2f", 100 * accuracy);
  }

  private static String gap(double g) {
    return Double.isNaN(g) ? "n/a" : String.format(Locale.ROOT, "%.4f", g);
  }

  private static String ratio(double r) {
    return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "%.4f", r);
  }

  /** compare-KEY-VALUE.png for every value of every compare key (compare.png when there is none). */
  private static void writeCharts(Grid grid, List<Row> rows, Path dir, FileSystem fs) throws IOException {
    if (rows.isEmpty()) {
      return;
    }
    Map<String, List<String>> charts = new LinkedHashMap<>();
    if (grid.compareKeys().isEmpty()) {
      charts.put("compare.png", directories(rows, dir));
    }
    for (String key : grid.compareKeys()) {
      Map<String, List<Row>> byValue = new LinkedHashMap<>();
      for (Row r : rows) {
        byValue.computeIfAbsent(r.point().settings().getOrDefault(key, ""), v -> new ArrayList<>()).add(r);
      }
      for (Map.Entry<String, List<Row>> e : byValue.entrySet()) {
        String file = ExperimentDirectory.chartName(key, e.getKey());
        charts.put(file, directories(e.getValue(), dir));
      }
    }
    for (Map.Entry<String, List<String>> e : charts.entrySet()) {
      ExperimentDirectory.recorded(fs, dir, e.getKey(),
          () -> CompareReport.write(e.getValue(), new Path(dir, e.getKey()).toString(), fs.getConf()));
    }
  }

  private static List<String> directories(List<Row> rows, Path dir) {
    List<String> dirs = new ArrayList<>();
    for (Row r : rows) {
      dirs.add(new Path(dir, r.point().name()).toString());
    }
    return dirs;
  }

  private static void writeText(FileSystem fs, Path path, String text) throws IOException {
    try (OutputStream out = fs.create(path, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
