package org.bitopk.job.report;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.AtomicFiles;

/**
 * The paper's view of several finished runs side by side: test accuracy against epochs, and against the
 * cumulative bytes sent up and down (the communication-accuracy trade-off), one series per run labelled
 * by mode, compressor and number of workers.
 */
public final class CompareReport {

  static final int COLUMNS = 3;
  static final int PANEL_WIDTH = 640;
  static final int PANEL_HEIGHT = 480;

  private CompareReport() {}

  /**
   * The labels of the runs, in order: {@link RunMetrics#label()}, made unique by appending the run's
   * name when two runs share a setup (e.g. two learning rates).
   */
  public static List<String> labels(List<RunMetrics> runs) {
    Map<String, Integer> counts = new HashMap<>();
    for (RunMetrics r : runs) {
      counts.merge(r.label(), 1, Integer::sum);
    }
    List<String> labels = new ArrayList<>(runs.size());
    Map<String, Integer> seen = new HashMap<>();
    for (RunMetrics r : runs) {
      String label = r.label();
      if (counts.get(label) > 1) {
        String candidate = label + " (" + r.name() + ")";
        int n = seen.merge(candidate, 1, Integer::sum);
        label = n == 1 ? candidate : candidate + " #" + n;
      }
      labels.add(label);
    }
    return labels;
  }

  /**
   * The comparison panels: accuracy vs epoch, accuracy vs cumulative MiB up + down (logarithmic, since a
   * dense run sends orders of magnitude more), test loss vs epoch. One series per run.
   *
   * @throws IllegalArgumentException when {@code runs} is empty
   */
  public static List<ChartData> charts(List<RunMetrics> runs) {
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("at least one run directory is needed to compare");
    }
    List<String> labels = labels(runs);
    List<ChartSeries> accuracyByEpoch = new ArrayList<>();
    List<ChartSeries> accuracyByBytes = new ArrayList<>();
    List<ChartSeries> lossByEpoch = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      MetricTable ep = runs.get(i).epochs();
      double[] accuracy = RunReport.scale(ep.column("test_accuracy"), 100.0);
      double[] epoch = ep.column("epoch");
      double[] mib = RunReport.scale(RunReport.add(ep.column("cum_up_bytes"), RunReport.deliveredDown(ep)),
          1 / RunReport.MIB);
      accuracyByEpoch.add(ChartSeries.of(labels.get(i), epoch, accuracy));
      accuracyByBytes.add(ChartSeries.of(labels.get(i), mib, accuracy));
      lossByEpoch.add(ChartSeries.of(labels.get(i), epoch, ep.column("test_loss")));
    }
    if (runs.stream().allMatch(CompareReport::hasOptimum)) {
      return optimalityCharts(runs, labels);
    }
    return List.of(
        ChartData.of("Test accuracy vs epoch", "epoch", "test accuracy (%)", accuracyByEpoch),
        ChartData.of("Test accuracy vs communication",
            "cumulative bytes delivered, up + down x P receivers (MiB, log scale)",
            "test accuracy (%)", true, accuracyByBytes),
        ChartData.of("Test loss vs epoch", "epoch", "test loss (cross-entropy)", lossByEpoch));
  }

  /** Whether the run's problem has a known optimum (the counterexample): its iterations record F − F*. */
  static boolean hasOptimum(RunMetrics run) {
    double[] gaps = run.iterations().column("optimality_gap");
    return gaps.length > 0 && !Double.isNaN(gaps[gaps.length - 1]);
  }

  /**
   * For runs without test data but with a known optimum (the counterexample): F − F* against the round and
   * against the cumulative bytes delivered, and F − F* over the second half of the rounds, where the modes
   * are compared.
   */
  private static List<ChartData> optimalityCharts(List<RunMetrics> runs, List<String> labels) {
    List<ChartSeries> byRound = new ArrayList<>();
    List<ChartSeries> byBytes = new ArrayList<>();
    List<ChartSeries> lastHalf = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      MetricTable it = runs.get(i).iterations();
      double[] round = it.column("iteration");
      double[] gap = it.column("optimality_gap");
      double[] delivered = RunReport.add(RunReport.cumulativeSum(it.column("up_bytes")),
          RunReport.cumulativeSum(it.column("down_bytes_delivered")));
      byRound.add(ChartSeries.of(labels.get(i), round, gap));
      byBytes.add(ChartSeries.of(labels.get(i), RunReport.scale(delivered, 1 / RunReport.MIB), gap));
      int from = round.length / 2;
      lastHalf.add(ChartSeries.of(labels.get(i), java.util.Arrays.copyOfRange(round, from, round.length),
          java.util.Arrays.copyOfRange(gap, from, gap.length)));
    }
    return List.of(
        ChartData.of("F - F* vs iteration", "iteration", "F(x_t) - F*", byRound),
        ChartData.of("F - F* vs communication", "cumulative bytes delivered, up + down x P receivers (MiB, log scale)",
            "F(x_t) - F*", true, byBytes),
        ChartData.of("F - F*, second half of the rounds", "iteration", "F(x_t) - F*", lastHalf));
  }

  /** One line per run: label, final accuracy and total traffic. */
  public static List<String> summary(List<RunMetrics> runs) {
    List<String> labels = labels(runs);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      MetricTable ep = runs.get(i).epochs();
      double accuracy = ep.last("test_accuracy");
      double[] delivered = RunReport.deliveredDown(ep);
      String figure = Double.isNaN(accuracy) && hasOptimum(runs.get(i))
          ? String.format(Locale.ROOT, "last-round F - F* %.4f", runs.get(i).iterations().last("optimality_gap"))
          : "final test accuracy " + (Double.isNaN(accuracy) ? "n/a"
              : String.format(Locale.ROOT, "%.2f %%", 100 * accuracy));
      lines.add(String.format(Locale.ROOT,
          "%s: %s, %.3f MiB up, %.3f MiB down (one copy), %.3f MiB delivered  [%s]",
          labels.get(i), figure,
          ep.last("cum_up_bytes") / RunReport.MIB, ep.last("cum_down_bytes") / RunReport.MIB,
          (delivered.length == 0 ? Double.NaN : delivered[delivered.length - 1]) / RunReport.MIB,
          new Path(runs.get(i).directory()).getName()));
    }
    return lines;
  }

  /** The picture's title. */
  public static String heading(List<RunMetrics> runs) {
    return "bitopk: " + runs.size() + " runs compared";
  }

  public static BufferedImage render(List<RunMetrics> runs) {
    return new ChartRenderer(COLUMNS, PANEL_WIDTH, PANEL_HEIGHT).render(heading(runs), summary(runs), charts(runs), null);
  }

  /**
   * Reads every run directory and writes the comparison picture to {@code out} (any Hadoop URI).
   *
   * @throws IllegalArgumentException naming the first directory that is not a run directory, or when the
   *     list is empty
   */
  public static void write(List<String> runDirectories, String out, Configuration conf) {
    if (runDirectories.isEmpty()) {
      throw new IllegalArgumentException("--runs needs at least one run directory");
    }
    if (out == null || out.isBlank()) {
      throw new IllegalArgumentException("--out needs a file name, e.g. compare.png");
    }
    List<RunMetrics> runs = new ArrayList<>();
    for (String dir : runDirectories) {
      runs.add(RunMetrics.read(dir, conf));
    }
    BufferedImage image = render(runs);
    Path path = new Path(out);
    try {
      FileSystem fs = path.getFileSystem(conf);
      if (fs.exists(path) && fs.getFileStatus(path).isDirectory()) {
        throw new IllegalArgumentException("--out " + out + " is a directory, expected a .png file name");
      }
      AtomicFiles.write(fs, path, stream -> ChartRenderer.writePng(image, stream));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + out + ": " + e.getMessage(), e);
    }
  }
}
