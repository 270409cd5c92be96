package org.bitopk.job.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunReportTest {

  private static final double MIB = 1024.0 * 1024.0;
  private static final double EPS = 1e-12;

  static Path fixture(String name) {
    try {
      return Path.of(RunReportTest.class.getResource("/report/" + name + "/config.json").toURI()).getParent();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A writable copy of a fixture run directory. */
  static Path copyOf(String name, Path into) throws IOException {
    Path source = fixture(name);
    Path target = into.resolve(name);
    try (var files = Files.walk(source)) {
      for (Path p : files.collect(Collectors.toList())) {
        Path t = target.resolve(source.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
    return target;
  }

  static RunMetrics read(String name) {
    return RunMetrics.read(fixture(name).toUri().toString(), new Configuration());
  }

  private static ChartData panel(List<ChartData> panels, String title) {
    return panels.stream().filter(p -> p.title().equals(title)).findFirst()
        .orElseThrow(() -> new AssertionError("no panel " + title + " in " + panels));
  }

  @Test
  void readsTheRunOutputContract() {
    RunMetrics run = read("bidir");
    assertEquals(6, run.iterations().size());
    assertEquals(2, run.epochs().size());
    assertEquals("bidirectional", run.mode());
    assertEquals(4, run.workers());
    assertEquals("topk", run.compressor());
    assertEquals("bidirectional topk P=4", run.label());
    assertEquals("dense P=4", read("dense").label());
    var config = run.config();
    config.put("downlink", "gaussiank");
    RunMetrics mixed = RunMetrics.of("mixed", config, run.iterations(), run.epochs());
    assertEquals("bidirectional topk/gaussiank P=4", mixed.label());
    config.put("uplink-feedback", "artemis");
    config.put("downlink-scheme", "mcm");
    assertEquals("bidirectional topk/gaussiank artemis/mcm P=4", RunMetrics.of("mcm", config, run.iterations(),
        run.epochs()).label());
    config.put("uplink-feedback", "ef14");
    config.put("downlink-scheme", "ef21-p");
    assertEquals("bidirectional topk/gaussiank ef14/ef21-p P=4", RunMetrics.of("p", config, run.iterations(),
        run.epochs()).label());
    config.put("downlink-scheme", "ef");
    assertEquals("bidirectional topk/gaussiank P=4", RunMetrics.of("ef", config, run.iterations(),
        run.epochs()).label());
    // xi is written on even iterations only: absent lines read as NaN
    double[] xi = run.iterations().column("xi");
    assertTrue(Double.isNaN(xi[0]));
    assertEquals(0.25, xi[1], EPS);
  }

  @Test
  void chartsCarryTheMetricsPointForPoint() {
    List<ChartData> panels = RunReport.charts(read("bidir"));
    assertEquals(List.of("Loss", "Test accuracy", "Accuracy vs traffic", "Bytes per iteration", "Cumulative bytes",
        "Kept coordinates k", "Time per iteration", "Compression error"),
        panels.stream().map(ChartData::title).collect(Collectors.toList()));

    ChartSeries accuracy = panel(panels, "Test accuracy").series("test accuracy").orElseThrow();
    assertArrayEquals(new double[] {1, 2}, accuracy.x(), EPS);
    assertArrayEquals(new double[] {50, 75}, accuracy.y(), EPS);

    ChartSeries loss = panel(panels, "Loss").series("training minibatch loss").orElseThrow();
    assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6}, loss.x(), EPS);
    assertArrayEquals(new double[] {2.3, 2.0, 1.8, 1.5, 1.3, 1.2}, loss.y(), EPS);
    ChartSeries testLoss = panel(panels, "Loss").series("test loss (epoch)").orElseThrow();
    assertArrayEquals(new double[] {3, 6}, testLoss.x(), EPS);   // drawn at the epoch's last iteration
    assertArrayEquals(new double[] {1.9, 1.25}, testLoss.y(), EPS);

    ChartSeries up = panel(panels, "Bytes per iteration").series("uplink (sum over workers)").orElseThrow();
    assertArrayEquals(new double[] {4, 4, 8, 4, 4, 8}, up.y(), EPS);   // KiB
    ChartSeries down = panel(panels, "Bytes per iteration").series("downlink (one broadcast)").orElseThrow();
    assertArrayEquals(new double[] {1, 2, 1, 2, 1, 2}, down.y(), EPS);

    // cumulative uplink recomputed by hand; it must end where epochs.jsonl says cum_up_bytes ends
    ChartSeries cumUp = panel(panels, "Cumulative bytes").series("uplink").orElseThrow();
    double[] expected = {4096, 8192, 16384, 20480, 24576, 32768};
    for (int i = 0; i < expected.length; i++) {
      expected[i] /= MIB;
    }
    assertArrayEquals(expected, cumUp.y(), EPS);
    assertEquals(32768 / MIB, cumUp.y()[5], EPS);
    ChartSeries cumDown = panel(panels, "Cumulative bytes").series("downlink").orElseThrow();
    assertEquals(9216 / MIB, cumDown.y()[5], EPS);

    ChartSeries traffic = panel(panels, "Accuracy vs traffic").series("test accuracy").orElseThrow();
    // The fixture predates delivered bytes: its downlink payloads count once per worker (P = 4).
    assertArrayEquals(new double[] {(16384 + 4 * 4096) / MIB, (32768 + 4 * 9216) / MIB}, traffic.x(), EPS);

    ChartData k = panel(panels, "Kept coordinates k");
    assertEquals(4, k.series().size());
    assertArrayEquals(new double[] {12, 12, 12, 12, 12, 12}, k.series("down achieved").orElseThrow().y(), EPS);

    assertTrue(k.series("up target").orElseThrow().dashed(), "targets are drawn as dashed reference lines");
    assertFalse(k.series("up achieved").orElseThrow().dashed());

    ChartData time = panel(panels, "Time per iteration");
    assertEquals(List.of("gradient", "compress", "aggregate", "broadcast", "total"),
        time.series().stream().map(ChartSeries::name).collect(Collectors.toList()));
    assertArrayEquals(new double[] {6, 7, 8, 9, 10, 11}, time.series("gradient").orElseThrow().y(), EPS);

    ChartData error = panel(panels, "Compression error");
    ChartSeries xi = error.series("ξ").orElseThrow();
    assertArrayEquals(new double[] {2, 4, 6}, xi.x(), EPS);   // only where recorded: no line to zero
    assertArrayEquals(new double[] {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, error.series("δ down").orElseThrow().y(), EPS);
  }

  @Test
  void compressionErrorPanelOnlyWhenRecorded() {
    List<ChartData> panels = RunReport.charts(read("dense"));
    assertEquals(7, panels.size());
    assertFalse(panels.stream().anyMatch(p -> p.title().equals("Compression error")));
  }

  @Test
  void longRunsAreAveragedIntoBuckets() {
    int n = 1234;
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      lines.add(String.format(Locale.ROOT, "{\"iteration\":%d,\"epoch\":1,\"loss\":%d,\"up_bytes\":1024}", i, i * 2));
    }
    RunMetrics run = RunMetrics.of("mem", null, MetricTable.parse("mem", lines), MetricTable.parse("mem", List.of()));
    ChartSeries loss = panel(RunReport.charts(run), "Loss").series("training minibatch loss").orElseThrow();
    int width = (n + RunReport.MAX_POINTS - 1) / RunReport.MAX_POINTS;   // 3 iterations per point
    int buckets = (n + width - 1) / width;
    assertEquals(buckets + 2, loss.size(), "bucket means plus the exact first and last iteration");
    assertTrue(buckets <= RunReport.MAX_POINTS);
    assertEquals(1, loss.x()[0], 0);
    assertEquals(2, loss.y()[0], 0);
    assertEquals(n, loss.x()[buckets + 1], 0);
    assertEquals(2 * n, loss.y()[buckets + 1], 0);
    // brute force: bucket b holds iterations b*width+1 .. (b+1)*width
    for (int b = 0; b < buckets; b++) {
      double sumX = 0;
      double sumY = 0;
      int count = 0;
      for (int i = b * width + 1; i <= Math.min(n, (b + 1) * width); i++) {
        sumX += i;
        sumY += 2 * i;
        count++;
      }
      assertEquals(sumX / count, loss.x()[b + 1], 1e-9);
      assertEquals(sumY / count, loss.y()[b + 1], 1e-9);
    }
    ChartSeries cum = panel(RunReport.charts(run), "Cumulative bytes").series("uplink").orElseThrow();
    assertEquals(buckets + 1, cum.size(), "each bucket's last point plus the first iteration");
    assertEquals(1024 / MIB, cum.y()[0], 1e-12);
    assertEquals(n * 1024 / MIB, cum.y()[cum.size() - 1], 1e-12);   // the last bucket ends at the total
    assertEquals(n, cum.x()[cum.size() - 1], 0);
    assertEquals(3 * 1024 / MIB, cum.y()[1], 1e-12);   // end of the first bucket of 3 iterations
  }

  @Test
  void writesPictureAndPageIntoTheRunDirectory(@TempDir Path tmp) throws IOException {
    Path dir = copyOf("bidir", tmp);
    RunReport.write(dir.toUri().toString(), new Configuration());

    BufferedImage png = ImageIO.read(dir.resolve(RunReport.PNG).toFile());
    assertNotNull(png, "report.png must decode");
    assertEquals(RunReport.COLUMNS * RunReport.PANEL_WIDTH, png.getWidth());
    assertEquals(ChartRenderer.headingHeight(2) + 2 * RunReport.PANEL_HEIGHT, png.getHeight());
    assertTrue(distinctColours(png) > 10, "the picture is not blank");

    String html = Files.readString(dir.resolve(RunReport.HTML), StandardCharsets.UTF_8);
    assertTrue(html.contains("src=\"data:image/png;base64,"), "the page embeds the picture");
    assertTrue(html.contains("&quot;uplink&quot; : &quot;topk&quot;"), "the page shows config.json");
    assertTrue(html.contains("final test accuracy 75.00 %"), html);
  }

  @Test
  void badDirectoriesGetOneClearError(@TempDir Path tmp) throws IOException {
    String missing = tmp.resolve("nope").toUri().toString();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RunMetrics.read(missing, new Configuration()));
    assertTrue(e.getMessage().contains("does not exist") && e.getMessage().contains("nope"), e.getMessage());

    Path empty = Files.createDirectories(tmp.resolve("empty"));
    e = assertThrows(IllegalArgumentException.class,
        () -> RunMetrics.read(empty.toUri().toString(), new Configuration()));
    assertTrue(e.getMessage().contains("metrics/iterations.jsonl is missing"), e.getMessage());

    Path broken = copyOf("bidir", tmp.resolve("b"));
    Files.writeString(broken.resolve("metrics/epochs.jsonl"), "{\"epoch\": 1}\nnot json\n");
    e = assertThrows(IllegalArgumentException.class,
        () -> RunMetrics.read(broken.toUri().toString(), new Configuration()));
    assertTrue(e.getMessage().contains("epochs.jsonl line 2"), e.getMessage());
  }

  @Test
  void longSeriesGetAHiddenTickAnchorAndKeepTheirColours() {
    double[] x = java.util.stream.IntStream.range(0, 100).asDoubleStream().toArray();
    org.knowm.xchart.XYChart chart = RunReport.renderer().toXChart(
        ChartData.of("t", "iteration", "y", List.of(ChartSeries.of("a", x, x), ChartSeries.of("b", x, x))));
    assertEquals(3, chart.getSeriesMap().size());
    assertFalse(chart.getSeriesMap().get(" ").isShowInLegend());
    assertEquals(new java.awt.Color(0x1f77b4), chart.getSeriesMap().get("a").getLineColor());
    assertEquals(new java.awt.Color(0xd62728), chart.getSeriesMap().get("b").getLineColor());
    double[] epochs = {1, 2, 3, 4, 5};
    assertEquals(1, RunReport.renderer().toXChart(ChartData.of("t", "epoch", "y",
        List.of(ChartSeries.of("a", epochs, epochs)))).getSeriesMap().size(), "epoch series keep data ticks");
  }

  @Test
  void tickLabelsAreShortAndExact() {
    assertEquals("0.01953", ChartRenderer.tickLabel(0.01953125));
    assertEquals("1500", ChartRenderer.tickLabel(1500.0));
    assertEquals("1235000", ChartRenderer.tickLabel(1234567.0));
    assertEquals("0.5", ChartRenderer.tickLabel(0.5));
    assertEquals("0", ChartRenderer.tickLabel(0.0));
    assertEquals("-2.5", ChartRenderer.tickLabel(-2.5));
    assertEquals("2.5e-05", ChartRenderer.tickLabel(2.5e-5));
  }

  static int distinctColours(BufferedImage image) {
    java.util.Set<Integer> colours = new java.util.HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 3) {
      for (int x = 0; x < image.getWidth(); x += 3) {
        colours.add(image.getRGB(x, y));
      }
    }
    return colours.size();
  }
}
