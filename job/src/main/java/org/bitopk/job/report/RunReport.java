package org.bitopk.job.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.AtomicFiles;
import org.bitopk.job.output.RecordingFileSystem;
import org.bitopk.job.output.RunManifest;

/**
 * The picture of one run without Zeppelin: {@code report.png} (loss, accuracy, bytes up and down, kept
 * coordinates, time split, compression error when recorded) and {@code report.html}, which embeds the
 * picture and shows the run's configuration and summary numbers.
 *
 * <p>{@link #charts(RunMetrics)} prepares the data and is separate from drawing, so what a chart shows
 * is testable without looking at pixels.
 */
public final class RunReport {

  /** File names inside the run directory (the run-output contract, job/docs/run-output.md). */
  public static final String PNG = "report.png";
  public static final String HTML = "report.html";

  /** Grid of the picture: 4 panels per row, 2 rows for the 7 or 8 panels of a run. */
  static final int COLUMNS = 4;
  static final int PANEL_WIDTH = 560;
  static final int PANEL_HEIGHT = 400;
  /** Per-iteration series are averaged down to at most this many points (a panel is ~500 px wide). */
  static final int MAX_POINTS = 500;

  static final double KIB = 1024.0;
  static final double MIB = 1024.0 * 1024.0;

  private static final ObjectMapper JSON = new ObjectMapper();

  private RunReport() {}

  /**
   * The panels of a run report, in drawing order. Iteration columns are bucket-averaged to at most
   * {@link #MAX_POINTS} points (cumulative ones keep each bucket's last value), plus the exact first and
   * last iteration; epoch columns are kept point for point. The compression-error panel appears only when the run recorded δ or ξ.
   */
  public static List<ChartData> charts(RunMetrics run) {
    MetricTable it = run.iterations();
    MetricTable ep = run.epochs();
    double[] iteration = it.column("iteration");
    double[] epochIteration = ep.column("iteration");
    double[] epoch = ep.column("epoch");

    List<ChartData> panels = new ArrayList<>();
    panels.add(ChartData.of("Loss", "iteration", "cross-entropy loss", List.of(
        perIteration("training minibatch loss", iteration, it.column("loss")),
        ChartSeries.of("train loss (epoch)", epochIteration, ep.column("train_loss")),
        ChartSeries.of("test loss (epoch)", epochIteration, ep.column("test_loss")))));
    panels.add(ChartData.of("Test accuracy", "epoch", "test accuracy (%)", List.of(accuracyByEpoch(run))));
    panels.add(ChartData.of("Accuracy vs traffic", "cumulative bytes delivered, up + down x P (MiB)",
        "test accuracy (%)", List.of(ChartSeries.of("test accuracy",
            scale(add(ep.column("cum_up_bytes"), deliveredDown(ep)), 1 / MIB), scale(ep.column("test_accuracy"), 100.0)))));
    panels.add(ChartData.of("Bytes per iteration", "iteration", "KiB per iteration", List.of(
        perIteration("uplink (sum over workers)", iteration, scale(it.column("up_bytes"), 1 / KIB)),
        perIteration("downlink (one broadcast)", iteration, scale(it.column("down_bytes"), 1 / KIB)))));
    List<ChartSeries> cumulativeBytes = new ArrayList<>(List.of(
        cumulative("uplink", iteration, scale(cumulativeSum(it.column("up_bytes")), 1 / MIB)),
        cumulative("downlink", iteration, scale(cumulativeSum(it.column("down_bytes")), 1 / MIB))));
    if (it.hasValues("down_bytes_delivered")) {
      cumulativeBytes.add(cumulative("downlink delivered (x P receivers)", iteration,
          scale(cumulativeSum(it.column("down_bytes_delivered")), 1 / MIB)));
    }
    panels.add(ChartData.of("Cumulative bytes", "iteration", "cumulative MiB", cumulativeBytes));
    panels.add(ChartData.of("Kept coordinates k", "iteration", "k (uplink: mean per worker)", List.of(
        reference("up target", iteration, it.column("up_target_k")),
        perIteration("up achieved", iteration, it.column("up_achieved_k")),
        reference("down target", iteration, it.column("down_target_k")),
        perIteration("down achieved", iteration, it.column("down_achieved_k")))));
    panels.add(ChartData.of("Time per iteration", "iteration", "time (ms)", List.of(
        perIteration("gradient", iteration, it.column("time_gradient_ms")),
        perIteration("compress", iteration, it.column("time_compress_ms")),
        perIteration("aggregate", iteration, it.column("time_aggregate_ms")),
        perIteration("broadcast", iteration, it.column("time_broadcast_ms")),
        perIteration("total", iteration, it.column("time_total_ms")))));
    if (it.hasValues("delta_up") || it.hasValues("delta_down") || it.hasValues("xi")) {
      panels.add(ChartData.of("Compression error", "iteration", "relative error (ratio)", List.of(
          perIteration("δ up", iteration, it.column("delta_up")),
          perIteration("δ down", iteration, it.column("delta_down")),
          perIteration("ξ", iteration, it.column("xi")))));
    }
    return panels;
  }

  /**
   * Test accuracy by epoch: the epoch ends' evaluations and, when a short run evaluated inside epochs too (the
   * iteration lines' {@code test_accuracy}), those at their fraction of an epoch, in order of rounds done.
   */
  static ChartSeries accuracyByEpoch(RunMetrics run) {
    MetricTable it = run.iterations();
    MetricTable ep = run.epochs();
    long perEpoch = run.config().path("resolved").path("iterations_per_epoch").asLong(0);
    if (!it.hasValues("test_accuracy") || perEpoch < 1) {
      return ChartSeries.of("test accuracy", ep.column("epoch"), scale(ep.column("test_accuracy"), 100.0));
    }
    java.util.TreeMap<Double, Double> byRoundsDone = new java.util.TreeMap<>();
    double[] roundsDone = ep.column("iteration");
    double[] accuracy = ep.column("test_accuracy");
    for (int i = 0; i < roundsDone.length; i++) {
      byRoundsDone.put(roundsDone[i], accuracy[i]);
    }
    double[] round = it.column("iteration");
    double[] within = it.column("test_accuracy");
    for (int i = 0; i < round.length; i++) {
      if (Double.isFinite(within[i])) {
        byRoundsDone.putIfAbsent(round[i] + 1, within[i]);   // evaluated after round t: t + 1 rounds done
      }
    }
    double[] x = new double[byRoundsDone.size()];
    double[] y = new double[x.length];
    int j = 0;
    for (var e : byRoundsDone.entrySet()) {
      x[j] = e.getKey() / perEpoch;
      y[j++] = 100 * e.getValue();
    }
    return ChartSeries.of("test accuracy", x, y);
  }

  private static ChartSeries perIteration(String name, double[] iteration, double[] values) {
    double[][] xy = Downsample.series(iteration, values, MAX_POINTS, false);
    return ChartSeries.of(name, xy[0], xy[1]);
  }

  private static ChartSeries reference(String name, double[] iteration, double[] values) {
    double[][] xy = Downsample.series(iteration, values, MAX_POINTS, false);
    return ChartSeries.reference(name, xy[0], xy[1]);
  }

  private static ChartSeries cumulative(String name, double[] iteration, double[] values) {
    double[][] xy = Downsample.series(iteration, values, MAX_POINTS, true);
    return ChartSeries.of(name, xy[0], xy[1]);
  }

  /**
   * Cumulative downlink bytes as delivered (each payload times its P receivers, plus snapshot reloads); runs
   * written before that field existed fall back to the payload times their workers.
   */
  static double[] deliveredDown(MetricTable epochs) {
    if (epochs.hasValues("cum_down_bytes_delivered")) {
      return epochs.column("cum_down_bytes_delivered");
    }
    double[] down = epochs.column("cum_down_bytes");
    double[] workers = epochs.column("workers");
    double[] out = new double[down.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = down[i] * workers[i];
    }
    return out;
  }

  /** One-line facts shown under the title of the picture and in the HTML page. */
  public static List<String> summary(RunMetrics run) {
    MetricTable it = run.iterations();
    MetricTable ep = run.epochs();
    double upMib = sum(it.column("up_bytes")) / MIB;
    double downMib = sum(it.column("down_bytes")) / MIB;
    double deliveredMib = it.hasValues("down_bytes_delivered") ? sum(it.column("down_bytes_delivered")) / MIB
        : downMib * it.last("workers");
    double accuracy = ep.last("test_accuracy");
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "%s, %d iterations, %d epochs, final test accuracy %s",
        run.label(), it.size(), ep.size(),
        Double.isNaN(accuracy) ? "n/a" : String.format(Locale.ROOT, "%.2f %%", 100 * accuracy)));
    lines.add(String.format(Locale.ROOT,
        "traffic: uplink %.3f MiB, downlink %.3f MiB (one copy), %.3f MiB delivered; mean time per iteration %.1f ms",
        upMib, downMib, deliveredMib, mean(it.column("time_total_ms"))));
    return lines;
  }

  /** The picture's title: the run's name, never its directory's path (the picture travels without it). */
  public static String heading(RunMetrics run) {
    return "bitopk run " + run.name();
  }

  /** Draws the report picture of a run (also used by tests to check its size). */
  public static BufferedImage render(RunMetrics run) {
    List<ChartData> panels = charts(run);
    return renderer().render(heading(run), summary(run), panels,
        "δ and ξ were not recorded in this run");
  }

  static ChartRenderer renderer() {
    return new ChartRenderer(COLUMNS, PANEL_WIDTH, PANEL_HEIGHT);
  }

  /**
   * Reads the run directory and writes {@code report.png} and {@code report.html} into it, replacing
   * earlier ones.
   *
   * @throws IllegalArgumentException when the directory is not a run directory (see {@link RunMetrics#read})
   */
  public static void write(String runDirectory, Configuration conf) {
    Path dir = new Path(runDirectory);
    FileSystem fs;
    try {
      FileSystem plain = dir.getFileSystem(conf);
      // a run's manifest records the report like every file of the run, so --overwrite may remove it
      fs = RunManifest.read(plain, dir).<FileSystem>map(m -> new RecordingFileSystem(plain, m)).orElse(plain);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report into " + runDirectory + ": " + e.getMessage(), e);
    }
    write(runDirectory, fs);
  }

  /** As {@link #write(String, Configuration)}, writing through {@code fs} (a run's recording file system). */
  public static void write(String runDirectory, FileSystem fs) {
    RunMetrics run = RunMetrics.read(runDirectory, fs.getConf());
    BufferedImage image = render(run);
    Path dir = new Path(runDirectory);
    try {
      ByteArrayOutputStream png = new ByteArrayOutputStream();
      ChartRenderer.writePng(image, png);
      // written atomically: a failure (full disk) leaves the previous file or none, never a truncated one
      AtomicFiles.write(fs, new Path(dir, PNG), png::writeTo);
      byte[] page = html(run, png.toByteArray()).getBytes(StandardCharsets.UTF_8);
      AtomicFiles.write(fs, new Path(dir, HTML), out -> out.write(page));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report into " + runDirectory + ": " + e.getMessage(), e);
    }
  }

  /** The HTML page: picture inlined (the page stays whole when copied alone), summary and config. */
  static String html(RunMetrics run, byte[] png) {
    String config;
    try {
      config = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(run.config());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("config.json of " + run.directory() + " cannot be printed", e);
    }
    StringBuilder b = new StringBuilder();
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>bitopk run ")
        .append(escape(run.name())).append("</title>\n")
        .append("<style>body{font-family:sans-serif;margin:1.5em}img{max-width:100%}"
            + "pre{background:#f6f6f6;padding:1em;overflow:auto}</style>\n</head>\n<body>\n")
        .append("<h1>bitopk run ").append(escape(run.name())).append("</h1>\n<ul>\n");
    for (String line : summary(run)) {
      b.append("<li>").append(escape(line)).append("</li>\n");
    }
    // the directory's name, not its path: the page is copied and published with the run
    b.append("<li>directory: <code>").append(escape(new Path(run.directory()).getName())).append("</code></li>\n</ul>\n")
        .append("<img alt=\"loss, accuracy, bytes up and down, kept coordinates and time split of the run\" src=\"data:image/png;base64,")
        .append(Base64.getEncoder().encodeToString(png)).append("\">\n")
        .append("<h2>Configuration (config.json)</h2>\n<pre>").append(escape(config)).append("</pre>\n")
        .append("</body>\n</html>\n");
    return b.toString();
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  static double[] scale(double[] values, double factor) {
    double[] out = new double[values.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = values[i] * factor;
    }
    return out;
  }

  static double[] add(double[] a, double[] b) {
    double[] out = new double[a.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = a[i] + b[i];
    }
    return out;
  }

  /** Running sum; a missing value adds nothing but keeps its position (NaN stays NaN there). */
  static double[] cumulativeSum(double[] values) {
    double[] out = new double[values.length];
    double total = 0;
    for (int i = 0; i < out.length; i++) {
      if (Double.isNaN(values[i])) {
        out[i] = Double.NaN;
      } else {
        total += values[i];
        out[i] = total;
      }
    }
    return out;
  }

  static double sum(double[] values) {
    double total = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        total += v;
      }
    }
    return total;
  }

  static double mean(double[] values) {
    double total = 0;
    int n = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        total += v;
        n++;
      }
    }
    return n == 0 ? Double.NaN : total / n;
  }
}
