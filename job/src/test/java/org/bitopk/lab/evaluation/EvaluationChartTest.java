package org.bitopk.lab.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bitopk.job.report.ChartTexts;
import org.bitopk.job.report.LegendsFitTest;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;

/** evaluation.png with the default list of compressors over three rounds: both legends lie inside the image. */
class EvaluationChartTest {
  /** The default compressor texts of evaluate-compressors, and the fixed threshold it tunes. */
  private static final List<String> COMPRESSORS = List.of("topk", "gaussiank", "sidco-e:stages=1", "sidco-e:stages=3",
      "sidco-e", "sidco-gp:stages=1", "sidco-gp:stages=3", "sidco-gp", "sidco-gamma-gp:stages=1",
      "sidco-gamma-gp:stages=3", "sidco-gamma-gp", "dgc", "randomk", "threshold:tau=0.0224");

  @Test
  void everyCompressorIsInALegendThatFits() {
    List<XYChart> charts = EvaluationChart.charts(rows());
    assertEquals(2, charts.size());
    for (XYChart chart : charts) {
      assertEquals(COMPRESSORS.size(), chart.getSeriesMap().size(), chart.getTitle());
      LegendsFitTest.assertLegendInside(chart, chart.getTitle());
    }
  }

  /** The picture names compressors and quantities, never a machine's path (ChartPathsTest has the other kinds). */
  @Test
  void theChartNamesNoPath() throws java.io.IOException {
    assertTrue(EvaluationChart.png(rows()).length > 1000);
    List<String> texts = new ArrayList<>();
    for (XYChart chart : EvaluationChart.charts(rows())) {
      texts.addAll(ChartTexts.of(chart));
    }
    assertEquals(2 * (3 + COMPRESSORS.size()), texts.size(), texts.toString());
    ChartTexts.assertNoAbsolutePath(texts, Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
  }

  private static List<CompressorEvaluation.Row> rows() {
    List<CompressorEvaluation.Row> rows = new ArrayList<>();
    for (int round : new int[] {1, 100, 1000}) {
      for (int c = 0; c < COMPRESSORS.size(); c++) {
        rows.add(new CompressorEvaluation.Row(round, COMPRESSORS.get(c), 20, 242_762, 242, 242.0 * (c + 1) / 4,
            1.5 * (c + 1), 0.95, 0.94));
      }
    }
    return rows;
  }
}
