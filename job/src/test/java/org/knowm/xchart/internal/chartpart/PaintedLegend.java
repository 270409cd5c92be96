package org.knowm.xchart.internal.chartpart;

import java.awt.geom.Rectangle2D;

/**
 * Where XChart painted a chart's legend: its size from {@code Legend_.getBounds()} at the offsets its last
 * {@code paint} placed it at. XChart keeps the offsets package-private, hence this class in XChart's package (test
 * code only).
 */
public final class PaintedLegend {
  private PaintedLegend() {}

  /** The legend's box in the chart's own coordinates, after the chart was painted. */
  public static Rectangle2D box(Chart<?, ?> chart) {
    Legend_<?, ?> legend = chart.getLegend();
    Rectangle2D size = legend.getBounds();
    return new Rectangle2D.Double(legend.xOffset, legend.yOffset, size.getWidth(), size.getHeight());
  }
}
