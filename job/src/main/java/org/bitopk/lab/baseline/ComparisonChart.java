package org.bitopk.lab.baseline;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.report.ChartData;
import org.bitopk.job.report.ChartSeries;
import org.bitopk.job.report.PanelPicture;

/** {@code time-to-accuracy.png}: test accuracy against training seconds and against bytes moved, target dashed. */
final class ComparisonChart {
  static final String FILE = "time-to-accuracy.png";

  private ComparisonChart() {}

  static void write(FileSystem fs, Path file, List<SystemResult> results, ComparisonSettings s, String title)
      throws IOException {
    PanelPicture.write(fs, file, title, heading(s), panels(results, s), 2);
  }

  /** Accuracy against training seconds and against bytes moved, one series per system that has a trace. */
  static List<ChartData> panels(List<SystemResult> results, ComparisonSettings s) {
    List<ChartSeries> bySeconds = new ArrayList<>();
    List<ChartSeries> byBytes = new ArrayList<>();
    double maxSeconds = 0;
    double minBytes = Double.MAX_VALUE;
    double maxBytes = 0;
    for (SystemResult r : results) {
      List<TracePoint> points = r.trace().points();
      double[] seconds = new double[points.size()];
      double[] bytes = new double[points.size()];
      double[] accuracy = new double[points.size()];
      for (int i = 0; i < points.size(); i++) {
        seconds[i] = points.get(i).seconds();
        bytes[i] = r.bytesMeasured() ? points.get(i).bytes() : Double.NaN;
        accuracy[i] = points.get(i).accuracy();
        maxSeconds = Math.max(maxSeconds, seconds[i]);
        if (bytes[i] > 0) {
          minBytes = Math.min(minBytes, bytes[i]);
          maxBytes = Math.max(maxBytes, bytes[i]);
        }
      }
      if (points.isEmpty()) {
        continue;
      }
      bySeconds.add(ChartSeries.of(r.system(), seconds, accuracy));
      byBytes.add(ChartSeries.of(r.system(), bytes, accuracy));
    }
    String target = String.format(Locale.ROOT, "target %.1f %%", 100 * s.target());
    if (maxSeconds > 0) {
      bySeconds.add(ChartSeries.reference(target, new double[] {0, maxSeconds}, new double[] {s.target(), s.target()}));
    }
    if (maxBytes > 0) {
      byBytes.add(ChartSeries.reference(target, new double[] {minBytes, maxBytes}, new double[] {s.target(), s.target()}));
    }
    return List.of(
        ChartData.of("Test accuracy vs training time", "training seconds (evaluation excluded)", "test accuracy",
            bySeconds),
        ChartData.of("Test accuracy vs bytes moved", "bytes moved (log)", "test accuracy", true, byBytes));
  }

  /** The line under the title: the settings every system shared. */
  static List<String> heading(ComparisonSettings s) {
    return List.of(String.format(Locale.ROOT,
        "%s, MLP, P = %d, batch %d per worker, lr %s, rho %s; evaluated every %d rounds; budget %.0f s or %d epoch(s)",
        s.dataset(), s.workers(), s.batchSize(), s.learningRate(), s.density(), s.evalEvery(), s.maxSeconds(),
        s.epochs()));
  }
}
