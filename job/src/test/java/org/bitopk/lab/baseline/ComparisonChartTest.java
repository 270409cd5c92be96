package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bitopk.job.report.ChartData;
import org.bitopk.job.report.ChartTexts;
import org.bitopk.job.report.LegendsFitTest;
import org.bitopk.job.report.PanelChart;
import org.bitopk.job.report.PanelPicture;
import org.junit.jupiter.api.Test;

/** time-to-accuracy.png with every system of a full comparison: each legend lies inside its panel. */
class ComparisonChartTest {
  private static final ComparisonSettings SETTINGS = new ComparisonSettings("fashion-mnist", null, 4, 32, 0.1, 0.01,
      42, 50, 150, 3, 0.85);
  /** The systems of the comparison in REPRODUCTION.md, whose legend was cut off at both edges. */
  private static final List<String> SYSTEMS = List.of("bitopk-bidirectional", "bitopk-bidirectional-rho-0.001",
      "bitopk-unidirectional", "bitopk-unidirectional-rho-0.001", "bitopk-dense", "patm-1", "patm-5", "patm-20",
      "single-jvm", "shared");

  @Test
  void everySystemAndTheTargetAreInALegendThatFits() {
    List<ChartData> panels = ComparisonChart.panels(results(), SETTINGS);
    assertEquals(2, panels.size());
    for (ChartData panel : panels) {
      assertEquals(SYSTEMS.size() + 1, panel.series().size(), panel.title());
    }
    for (PanelChart chart : PanelPicture.charts(panels)) {
      LegendsFitTest.assertLegendInside(chart, chart.getTitle());
    }
  }

  /** Data read from a directory of the machine: the picture states the settings, not where the files were. */
  @Test
  void theChartNamesNoPath(@org.junit.jupiter.api.io.TempDir Path tmp) throws java.io.IOException {
    Path data = tmp.resolve("datasets/fashion-mnist");
    ComparisonSettings s = new ComparisonSettings("fashion-mnist", data.toString(), 4, 32, 0.1, 0.01, 42, 50, 150, 3,
        0.85);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(tmp.resolve(ComparisonChart.FILE).toUri());
    ComparisonChart.write(org.apache.hadoop.fs.FileSystem.getLocal(new org.apache.hadoop.conf.Configuration()), file,
        results(), s, "bitopk: time to accuracy against DL4J");
    assertTrue(java.nio.file.Files.size(tmp.resolve(ComparisonChart.FILE)) > 1000);
    List<String> texts = new ArrayList<>(ComparisonChart.heading(s));
    texts.addAll(ChartTexts.of(ComparisonChart.panels(results(), s)));
    assertTrue(texts.containsAll(SYSTEMS), texts.toString());
    ChartTexts.assertNoAbsolutePath(texts, tmp);
  }

  private static List<SystemResult> results() {
    List<SystemResult> results = new ArrayList<>();
    for (int s = 0; s < SYSTEMS.size(); s++) {
      List<TracePoint> points = new ArrayList<>();
      for (int i = 0; i <= 10; i++) {
        points.add(new TracePoint(50L * i, 3.0 * i * (s + 1), 1_000_000L * i * (s + 1), 0.1 + 0.08 * i, 1.0 / (i + 1)));
      }
      results.add(SystemResult.ok(SYSTEMS.get(s), "details", Trace.of(points)));
    }
    return results;
  }
}
