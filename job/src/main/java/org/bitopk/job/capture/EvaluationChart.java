package org.bitopk.job.capture;

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

  static {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private EvaluationChart() {}

  static byte[] png(List<CompressorEvaluation.Row> rows) throws IOException {
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
    XYChart k = chart("Achieved k / target k", "time ÷ exact TopK's", "k̂ / k");
    XYChart error = chart("Relative error ÷ exact TopK's", "time ÷ exact TopK's", "error ratio");
    for (Map.Entry<String, List<CompressorEvaluation.Row>> e : byCompressor.entrySet()) {
      int n = e.getValue().size();
      double[] time = new double[n];
      double[] kRatio = new double[n];
      double[] errorRatio = new double[n];
      for (int i = 0; i < n; i++) {
        CompressorEvaluation.Row r = e.getValue().get(i);
        time[i] = r.nsPerElement() / topkTime.get(r.round());
        kRatio[i] = r.achievedKMean() / r.targetK();
        errorRatio[i] = r.topkRelativeErrorMean() == 0 ? 1 : r.relativeErrorMean() / r.topkRelativeErrorMean();
      }
      k.addSeries(e.getKey(), time, kRatio).setMarker(SeriesMarkers.CIRCLE);
      error.addSeries(e.getKey(), time, errorRatio).setMarker(SeriesMarkers.CIRCLE);
    }
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

  private static XYChart chart(String title, String x, String y) {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle(y)
        .build();
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setMarkerSize(9);
    return chart;
  }
}
