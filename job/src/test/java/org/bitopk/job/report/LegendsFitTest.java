package org.bitopk.job.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.internal.chartpart.PaintedLegend;
import org.knowm.xchart.style.Styler;

/**
 * Every legend of the run report and the compare report lies inside its panel once painted: a legend wider than
 * the panel was centred under the plot and cut off at both edges.
 */
public class LegendsFitTest {

  /** Paints {@code chart} at its own size and asserts that its legend box lies inside that image. */
  public static void assertLegendInside(XYChart chart, String what) {
    BufferedImage image = new BufferedImage(chart.getWidth(), chart.getHeight(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      chart.paint(g, chart.getWidth(), chart.getHeight());
    } finally {
      g.dispose();
    }
    assertTrue(inside(PaintedLegend.box(chart), chart), what + ": legend " + PaintedLegend.box(chart)
        + " outside the " + chart.getWidth() + "x" + chart.getHeight() + " image");
  }

  private static boolean inside(Rectangle2D box, XYChart chart) {
    return box.getWidth() > 0 && box.getMinX() >= 0 && box.getMinY() >= 0 && box.getMaxX() <= chart.getWidth()
        && box.getMaxY() <= chart.getHeight();
  }

  @Test
  void runReportLegendsFit() {
    ChartRenderer renderer = new ChartRenderer(RunReport.COLUMNS, RunReport.PANEL_WIDTH, RunReport.PANEL_HEIGHT);
    for (ChartData panel : RunReport.charts(RunReportTest.read("bidir"))) {
      if (!panel.isEmpty()) {
        assertLegendInside(renderer.toXChart(panel), panel.title());
      }
    }
  }

  /** Nine runs of one set-up, as an experiment's comparison has them: every label carries its run's name. */
  @Test
  void compareReportLegendsFitWithManyLongLabels() {
    for (ChartData panel : CompareReport.charts(nineRuns())) {
      assertLegendInside(compareRenderer().toXChart(panel), panel.title());
    }
  }

  private static List<RunMetrics> nineRuns() {
    RunMetrics bidir = RunReportTest.read("bidir");
    List<RunMetrics> runs = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      runs.add(RunMetrics.of("runs/bidirectional_workers-100_lr-0.22_seed-" + i, bidir.config(), bidir.iterations(),
          bidir.epochs()));
    }
    return runs;
  }

  private static ChartRenderer compareRenderer() {
    return new ChartRenderer(CompareReport.COLUMNS, CompareReport.PANEL_WIDTH, CompareReport.PANEL_HEIGHT);
  }

  /** The check can fail: the same legend forced under the plot, as before, sticks out of the image. */
  @Test
  void aLegendTooWideForThePanelIsCaught() {
    XYChart chart = compareRenderer().toXChart(CompareReport.charts(nineRuns()).get(0));
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    BufferedImage image = new BufferedImage(chart.getWidth(), chart.getHeight(), BufferedImage.TYPE_INT_RGB);
    chart.paint(image.createGraphics(), chart.getWidth(), chart.getHeight());
    assertFalse(inside(PaintedLegend.box(chart), chart), "legend " + PaintedLegend.box(chart));
  }

  /** Pictures name runs by their directory's name, never by a machine's path. */
  @Test
  void compareSummaryNamesRunsNotPaths() {
    RunMetrics bidir = RunReportTest.read("bidir");
    for (String line : CompareReport.summary(List.of(bidir))) {
      assertTrue(line.endsWith("[bidir]"), line);
    }
  }
}
