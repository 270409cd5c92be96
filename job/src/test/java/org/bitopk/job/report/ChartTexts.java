package org.bitopk.job.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import org.knowm.xchart.XYChart;

/**
 * The words a chart carries (its title, axis titles and legend entries, the heading band above the panels), and the
 * check that none names a machine's absolute path: charts are committed and published beside documents, where
 * {@code /home/…/runs/a} means nothing to a reader.
 */
public final class ChartTexts {
  /** Two or more path elements after a leading slash, at the start of a word: {@code /work/runs}, {@code [/tmp/x}. */
  private static final Pattern ABSOLUTE = Pattern.compile("(^|[\\s\\[(:=\"'<>])(/[^\\s/\\])]+){2,}|[A-Za-z]:\\\\|file:/");

  private ChartTexts() {}

  /** The title, axis titles and legend entries of an XChart chart as it will paint them. */
  public static List<String> of(XYChart chart) {
    List<String> out = new ArrayList<>(List.of(chart.getTitle(), chart.getXAxisTitle(), chart.getYAxisTitle()));
    out.addAll(chart.getSeriesMap().keySet());
    return out;
  }

  /** Every word of the panels, as the renderer draws them. */
  public static List<String> of(List<ChartData> panels) {
    List<String> out = new ArrayList<>();
    for (PanelChart chart : PanelPicture.charts(panels)) {
      out.addAll(of(chart));
    }
    return out;
  }

  /** The texts that name an absolute path, or the directory {@code root} the charted runs lie in. */
  public static List<String> absolutePaths(Collection<String> texts, Path root) {
    List<String> out = new ArrayList<>();
    for (String text : texts) {
      if (ABSOLUTE.matcher(text).find() || text.contains(root.toString()) || text.contains(root.toUri().getPath())) {
        out.add(text);
      }
    }
    return out;
  }

  public static void assertNoAbsolutePath(Collection<String> texts, Path root) {
    assertEquals(List.of(), absolutePaths(texts, root), "texts naming a machine's path, among " + texts);
  }
}
