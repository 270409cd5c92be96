package org.bitopk.lab.evaluation;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code evaluation.png}: two panels against the time per element — achieved k / target k and the error relative
 * to exact TopK's — one marker per (round, compressor), one colour per compressor. Where the SIDCo claim would put
 * a compressor: left of TopK's time, at k̂/k ≈ 1 and error ratio ≈ 1. Drawn with XChart like the run reports.
 */
final class EvaluationChart {
  private static final int WIDTH = 800;
  private static final int HEIGHT = 620;
  /** k̂/k is drawn on a log axis; an estimate that selected (almost) nothing is drawn at this floor. */
  private static final double MIN_K_RATIO = 1e-3;
  /** 14 distinguishable colours: the default compressor list has 14 entries. */
  private static final Color[] PALETTE = {new Color(0x000000), new Color(0xe6194b), new Color(0x3cb44b),
      new Color(0x4363d8), new Color(0xf58231), new Color(0x911eb4), new Color(0x42d4f4), new Color(0xf032e6),
      new Color(0x9a6324), new Color(0x808000), new Color(0x469990), new Color(0x800000), new Color(0xbfef45),
      new Color(0xa9a9a9)};

  static {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private EvaluationChart() {}

  static byte[] png(List<CompressorEvaluation.Row> rows) throws IOException {
    List<XYChart> charts = charts(rows);
    XYChart k = charts.get(0);
    XYChart error = charts.get(1);
    BufferedImage image = new BufferedImage(2 * WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, image.getWidth(), image.getHeight());
      k.paint((Graphics2D) g.create(0, 0, WIDTH, HEIGHT), WIDTH, HEIGHT);
      error.paint((Graphics2D) g.create(WIDTH, 0, WIDTH, HEIGHT), WIDTH, HEIGHT);
    } finally {
      g.dispose();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (!ImageIO.write(image, "png", out)) {
      throw new IOException("no PNG writer available in this JVM");
    }
    return out.toByteArray();
  }

  /** The two charts side by side: k̂/k and the error ratio against time, one series per compressor. */
  static List<XYChart> charts(List<CompressorEvaluation.Row> rows) {
    Map<Integer, Double> topkTime = new LinkedHashMap<>();
    for (CompressorEvaluation.Row r : rows) {
      if (r.compressor().equals("topk")) {
        topkTime.put(r.round(), r.nsPerElement());
      }
    }
    Map<String, List<CompressorEvaluation.Row>> byCompressor = new LinkedHashMap<>();
    for (CompressorEvaluation.Row r : rows) {
      byCompressor.computeIfAbsent(EvaluationOutput.label(r.compressor()), c -> new ArrayList<>()).add(r);
    }
    XYChart k = chart("Achieved k / target k (log; " + MIN_K_RATIO + " = nothing selected)", "time ÷ exact TopK's",
        "k̂ / k");
    k.getStyler().setYAxisLogarithmic(true);
    XYChart error = chart("Relative error ÷ exact TopK's", "time ÷ exact TopK's", "error ratio");
    for (Map.Entry<String, List<CompressorEvaluation.Row>> e : byCompressor.entrySet()) {
      int n = e.getValue().size();
      double[] time = new double[n];
      double[] kRatio = new double[n];
      double[] errorRatio = new double[n];
      for (int i = 0; i < n; i++) {
        CompressorEvaluation.Row r = e.getValue().get(i);
        time[i] = r.nsPerElement() / topkTime.get(r.round());
        kRatio[i] = Math.max(MIN_K_RATIO, r.achievedKMean() / r.targetK());
        errorRatio[i] = r.topkRelativeErrorMean() == 0 ? 1 : r.relativeErrorMean() / r.topkRelativeErrorMean();
      }
      k.addSeries(e.getKey(), time, kRatio).setMarker(marker(e.getKey()));
      error.addSeries(e.getKey(), time, errorRatio).setMarker(marker(e.getKey()));
    }
    return List.of(k, error);
  }

  /** SIDCo's stage counts by shape: 1 circle, 3 square, adaptive diamond; the others triangles. */
  private static org.knowm.xchart.style.markers.Marker marker(String label) {
    if (label.endsWith("stages=1")) {
      return SeriesMarkers.CIRCLE;
    }
    if (label.endsWith("stages=adaptive")) {
      return SeriesMarkers.DIAMOND;
    }
    return label.contains(":stages=") ? SeriesMarkers.SQUARE : SeriesMarkers.TRIANGLE_UP;
  }

  private static XYChart chart(String title, String x, String y) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle(y)
        .build();
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setMarkerSize(9);
    chart.getStyler().setSeriesColors(PALETTE);
    return chart;
  }
}
