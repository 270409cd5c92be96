package org.bitopk.job.report;

import java.awt.Font;
import java.awt.geom.Rectangle2D;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * An XChart chart whose legend is laid out to fit. XChart centres a horizontal legend under the plot and never
 * wraps it, so a legend wider than the plot is cut off at both edges; {@link #fitLegend} measures it (XChart's own
 * {@code Legend_.getBounds}, reachable from a subclass) and moves it beside the plot, one entry a line, when it
 * would not fit under it.
 */
public final class PanelChart extends XYChart {
  /** Room XChart keeps around the chart's parts. */
  private static final int MARGIN = 10;
  /** The smallest legend font tried before giving up shrinking: still readable when the picture is halved. */
  private static final int MIN_FONT = 10;

  public PanelChart(XYChartBuilder builder) {
    super(builder);
  }

  /** The legend's width and height as XChart will draw it (series must have their render style set). */
  public Rectangle2D legendSize() {
    return legend.getBounds();
  }

  /**
   * Horizontal under the plot when it fits the width; else vertical to the right of the plot, taking at most
   * half the width and the plot's height, in a smaller font when that is what it takes.
   */
  public void fitLegend() {
    Styler styler = getStyler();
    if (getSeriesMap().values().stream().noneMatch(s -> s.isShowInLegend())) {
      return;
    }
    if (legendSize().getWidth() <= getWidth() - 2 * MARGIN) {
      return;
    }
    styler.setLegendPosition(Styler.LegendPosition.OutsideE);
    styler.setLegendLayout(Styler.LegendLayout.Vertical);
    Font font = styler.getLegendFont();
    while (font.getSize() > MIN_FONT && !fitsBeside()) {
      font = font.deriveFont((float) font.getSize() - 1);
      styler.setLegendFont(font);
    }
  }

  private boolean fitsBeside() {
    Rectangle2D size = legendSize();
    return size.getWidth() <= getWidth() / 2.0 && size.getHeight() <= getHeight() - 4 * MARGIN;
  }
}
