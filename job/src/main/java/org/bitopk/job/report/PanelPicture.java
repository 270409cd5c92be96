package org.bitopk.job.report;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.AtomicFiles;

/**
 * One PNG of chart panels under a heading, drawn like the run and compare reports, for commands outside this
 * package (the time-to-accuracy comparison): they hand over {@link ChartData}, the rendering stays here.
 */
public final class PanelPicture {
  private static final int PANEL_WIDTH = 720;
  private static final int PANEL_HEIGHT = 480;

  private PanelPicture() {}

  /** Renders {@code panels} side by side ({@code columns} per row) and writes the PNG atomically to {@code file}. */
  public static void write(FileSystem fs, Path file, String heading, List<String> headingLines,
      List<ChartData> panels, int columns) throws IOException {
    BufferedImage image = new ChartRenderer(columns, PANEL_WIDTH, PANEL_HEIGHT)
        .render(heading, headingLines, panels, null);
    AtomicFiles.write(fs, file, stream -> ChartRenderer.writePng(image, stream));
  }

  /** The chart {@link #write} draws for each panel, at the size it draws it (to check its layout). */
  public static List<PanelChart> charts(List<ChartData> panels) {
    ChartRenderer renderer = new ChartRenderer(1, PANEL_WIDTH, PANEL_HEIGHT);
    return panels.stream().map(renderer::toXChart).collect(Collectors.toList());
  }
}
