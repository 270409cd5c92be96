package org.bitopk.job.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws report panels into one PNG with XChart, without a display: a heading band, then a grid of charts.
 * One image (rather than one file per chart) because a run directory should carry a single picture a
 * reader can open at a glance.
 */
final class ChartRenderer {

  static {
    // The driver of a cluster job has no display; AWT must not try to open one.
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  /** Series with at most this many points get markers: they are per-epoch values, worth seeing one by one. */
  private static final int MARKER_LIMIT = 60;
  private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 20);
  private static final Font TEXT_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
  private static final Color[] PALETTE = {
      new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
      new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
      new Color(0x7f7f7f), new Color(0xbcbd22)};

  private final int columns;
  private final int panelWidth;
  private final int panelHeight;

  ChartRenderer(int columns, int panelWidth, int panelHeight) {
    if (columns < 1 || panelWidth < 100 || panelHeight < 100) {
      throw new IllegalArgumentException("columns >= 1 and panels >= 100 px expected, got "
          + columns + " x " + panelWidth + "x" + panelHeight);
    }
    this.columns = columns;
    this.panelWidth = panelWidth;
    this.panelHeight = panelHeight;
  }

  /** Height of the heading band for the given number of text lines. */
  static int headingHeight(int lines) {
    return 40 + 22 * lines;
  }

  /** Image width for this grid. */
  int width() {
    return columns * panelWidth;
  }

  /** Image height for {@code panels} panels under a heading of {@code headingLines} lines. */
  int height(int panels, int headingLines) {
    int rows = Math.max(1, (panels + columns - 1) / columns);
    return headingHeight(headingLines) + rows * panelHeight;
  }

  /**
   * Renders the panels; a grid cell without a panel, or a panel without data, shows {@code emptyNote}
   * or "no data" so a reader sees what is missing instead of a blank.
   */
  BufferedImage render(String heading, List<String> headingLines, List<ChartData> panels, String emptyNote) {
    int top = headingHeight(headingLines.size());
    BufferedImage image = new BufferedImage(width(), height(panels.size(), headingLines.size()),
        BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, image.getWidth(), image.getHeight());
      g.setColor(Color.BLACK);
      g.setFont(TITLE_FONT);
      g.drawString(heading, 16, 30);
      g.setFont(TEXT_FONT);
      for (int i = 0; i < headingLines.size(); i++) {
        g.drawString(headingLines.get(i), 16, 30 + 24 * (i + 1));
      }
      int rows = (image.getHeight() - top) / panelHeight;
      for (int cell = 0; cell < rows * columns; cell++) {
        int x = (cell % columns) * panelWidth;
        int y = top + (cell / columns) * panelHeight;
        Graphics2D cellGraphics = (Graphics2D) g.create(x, y, panelWidth, panelHeight);
        try {
          XYChart chart = cell < panels.size() && !panels.get(cell).isEmpty() ? toXChart(panels.get(cell)) : null;
          if (chart != null && !chart.getSeriesMap().isEmpty()) {
            chart.paint(cellGraphics, panelWidth, panelHeight);
          } else if (cell < panels.size()) {
            paintNote(cellGraphics, panels.get(cell).title(), "no data in this run");
          } else if (emptyNote != null) {
            paintNote(cellGraphics, "", emptyNote);
          }
        } finally {
          cellGraphics.dispose();
        }
      }
    } finally {
      g.dispose();
    }
    return image;
  }

  private void paintNote(Graphics2D g, String title, String note) {
    g.setColor(new Color(0xf4f4f4));
    g.fillRect(8, 8, panelWidth - 16, panelHeight - 16);
    g.setColor(Color.DARK_GRAY);
    g.setStroke(new BasicStroke(1f));
    g.drawRect(8, 8, panelWidth - 16, panelHeight - 16);
    g.setFont(TITLE_FONT.deriveFont(16f));
    FontMetrics fm = g.getFontMetrics();
    g.drawString(title, (panelWidth - fm.stringWidth(title)) / 2, panelHeight / 2 - 14);
    g.setFont(TEXT_FONT);
    fm = g.getFontMetrics();
    g.drawString(note, (panelWidth - fm.stringWidth(note)) / 2, panelHeight / 2 + 12);
  }

  PanelChart toXChart(ChartData data) {
    PanelChart chart = new PanelChart(new XYChartBuilder().width(panelWidth).height(panelHeight).title(data.title())
        .xAxisTitle(data.xAxisTitle()).yAxisTitle(data.yAxisTitle()));
    var styler = chart.getStyler();
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBackgroundColor(Color.WHITE);
    styler.setPlotBorderColor(Color.GRAY);
    styler.setPlotGridLinesColor(new Color(0xdddddd));
    styler.setChartTitleBoxVisible(false);
    styler.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    styler.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    styler.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    styler.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    styler.setLegendPosition(Styler.LegendPosition.OutsideS);
    styler.setLegendLayout(Styler.LegendLayout.Horizontal);
    styler.setLegendBorderColor(Color.WHITE);
    styler.setSeriesColors(PALETTE);
    styler.setMarkerSize(6);
    styler.setXAxisLogarithmic(data.logarithmicX());
    styler.setXAxisMaxLabelCount(8);
    // a pattern, not a formatting function: with one XChart would put an x tick at every data point
    styler.setXAxisDecimalPattern("#,##0.####");
    styler.setyAxisTickLabelsFormattingFunction(ChartRenderer::tickLabel);
    addTickAnchor(chart, data);
    int index = 0;
    for (ChartSeries s : data.series()) {
      Color colour = PALETTE[index++ % PALETTE.length];
      double[] x = s.x();
      double[] y = s.y();
      if (data.logarithmicX()) {
        List<double[]> kept = positiveX(x, y);
        x = kept.get(0);
        y = kept.get(1);
        if (x.length == 0) {
          continue;
        }
      }
      XYSeries series = chart.addSeries(s.name(), x, y);
      series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
      series.setLineColor(colour);
      series.setMarkerColor(colour);
      if (s.dashed()) {
        series.setLineStyle(SeriesLines.DASH_DASH);
      }
      if (s.size() > MARKER_LIMIT) {
        series.setMarker(SeriesMarkers.NONE);
      } else {
        series.setMarker(SeriesMarkers.CIRCLE);
      }
    }
    chart.fitLegend();
    return chart;
  }

  /**
   * XChart puts the x ticks on data points (0, 13, 26, …) instead of round numbers whenever the x values
   * of all series are evenly spaced, as iterations are. A hidden two-point series at the start of the
   * first series, a third of a step apart, breaks the even spacing without changing the axis range. Short
   * series (epochs) keep their ticks on the data: 1, 2, 3 is what a reader wants there.
   */
  private static void addTickAnchor(XYChart chart, ChartData data) {
    if (data.logarithmicX() || data.series().isEmpty() || data.series().get(0).size() <= MARKER_LIMIT) {
      return;
    }
    double[] x = data.series().get(0).x();
    double[] y = data.series().get(0).y();
    XYSeries anchor = chart.addSeries(" ", new double[] {x[0], x[0] + (x[1] - x[0]) / 3}, new double[] {y[0], y[0]});
    anchor.setShowInLegend(false);
    anchor.setMarker(SeriesMarkers.NONE);
    anchor.setLineColor(new Color(0, 0, 0, 0));
    anchor.setLineStyle(SeriesLines.NONE);
    anchor.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
  }

  /** At most four significant digits, no trailing zeros: 0.0195, 1500, 2.5e-05. */
  static String tickLabel(Double value) {
    double v = value;
    if (v == 0 || !Double.isFinite(v)) {
      return v == 0 ? "0" : String.valueOf(v);
    }
    double magnitude = Math.abs(v);
    if (magnitude < 1e-4 || magnitude >= 1e7) {
      return String.format(java.util.Locale.ROOT, "%.3g", v).replaceAll("\\.?0+e", "e");
    }
    java.math.BigDecimal d = new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros();
    return d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString();
  }

  private static List<double[]> positiveX(double[] x, double[] y) {
    int n = 0;
    for (double v : x) {
      if (v > 0) {
        n++;
      }
    }
    double[] xs = new double[n];
    double[] ys = new double[n];
    int j = 0;
    for (int i = 0; i < x.length; i++) {
      if (x[i] > 0) {
        xs[j] = x[i];
        ys[j++] = y[i];
      }
    }
    List<double[]> out = new ArrayList<>(2);
    out.add(xs);
    out.add(ys);
    return out;
  }

  static void writePng(BufferedImage image, OutputStream out) throws IOException {
    if (!ImageIO.write(image, "png", out)) {
      throw new IOException("no PNG writer available in this JVM");
    }
  }
}
