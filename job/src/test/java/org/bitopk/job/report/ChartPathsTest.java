package org.bitopk.job.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run report (picture and page) and the compare picture drawn from run directories under an absolute path name
 * the runs, never that path: the words of every panel, the heading band and the HTML page are searched for it.
 * (The time-to-accuracy and compressor-evaluation charts: ComparisonChartTest, EvaluationChartTest.)
 */
class ChartPathsTest {

  @Test
  void theRunReportNamesTheRunNotItsPath(@TempDir Path tmp) throws IOException {
    Path dir = RunReportTest.copyOf("bidir", tmp.resolve("runs"));
    RunMetrics run = RunMetrics.read(dir.toAbsolutePath().toString(), new Configuration());
    RunReport.write(run.directory(), new Configuration());
    assertNotNull(ImageIO.read(dir.resolve(RunReport.PNG).toFile()));
    List<String> texts = new ArrayList<>(List.of(RunReport.heading(run)));
    texts.addAll(RunReport.summary(run));
    texts.addAll(ChartTexts.of(RunReport.charts(run)));
    assertTrue(texts.size() > 20, "title, summary, panel titles, axes and legends: " + texts);
    ChartTexts.assertNoAbsolutePath(texts, tmp);
    String page = Files.readString(dir.resolve(RunReport.HTML), StandardCharsets.UTF_8);
    String withoutPicture = page.replaceAll("data:image/png;base64,[A-Za-z0-9+/=]+", "");
    assertTrue(withoutPicture.contains("<code>bidir</code>"), "the page names the run directory: " + withoutPicture);
    // the page's words, its tags taken out (a closing tag looks like a path)
    ChartTexts.assertNoAbsolutePath(withoutPicture.replaceAll("<[^>]*>", " ").lines().toList(), tmp);
  }

  @Test
  void theComparisonNamesEachRunNotItsPath(@TempDir Path tmp) throws IOException {
    List<RunMetrics> runs = new ArrayList<>();
    for (String name : List.of("bidir", "dense")) {
      runs.add(RunMetrics.read(RunReportTest.copyOf(name, tmp.resolve("runs")).toUri().toString(),
          new Configuration()));
    }
    assertNotNull(CompareReport.render(runs));
    List<String> texts = new ArrayList<>(List.of(CompareReport.heading(runs)));
    texts.addAll(CompareReport.summary(runs));
    texts.addAll(ChartTexts.of(CompareReport.charts(runs)));
    assertTrue(CompareReport.summary(runs).get(0).endsWith("[bidir]"), CompareReport.summary(runs).get(0));
    ChartTexts.assertNoAbsolutePath(texts, tmp);
  }

  /** The check itself: the header line the compare picture used to draw is caught, a plain label is not. */
  @Test
  void anAbsolutePathIsFound(@TempDir Path tmp) {
    String old = "dense P=20: final test accuracy 88.18 %, 6.0 MiB delivered  [/work/runs/thesis/dense_workers-20]";
    assertEquals(List.of(old), ChartTexts.absolutePaths(List.of(old, "dense P=20", "k̂ / k", "up + down x P (MiB)",
        "F(x_t) - F*"), tmp));
    assertEquals(List.of("in " + tmp), ChartTexts.absolutePaths(List.of("in " + tmp), Path.of("/nowhere")));
    assertEquals(1, ChartTexts.absolutePaths(List.of("see file:/x"), tmp).size());
  }
}
