package org.bitopk.job.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one panel of a report shows: title, axis titles (with units) and its series. Immutable; empty
 * series are dropped at construction so a panel never promises a line it cannot draw.
 */
public final class ChartData {

  private final String title;
  private final String xAxisTitle;
  private final String yAxisTitle;
  private final boolean logarithmicX;
  private final List<ChartSeries> series;

  private ChartData(String title, String xAxisTitle, String yAxisTitle, boolean logarithmicX,
      List<ChartSeries> series) {
    this.title = title;
    this.xAxisTitle = xAxisTitle;
    this.yAxisTitle = yAxisTitle;
    this.logarithmicX = logarithmicX;
    this.series = series;
  }

  /** A panel with linear axes. */
  public static ChartData of(String title, String xAxisTitle, String yAxisTitle, List<ChartSeries> series) {
    return of(title, xAxisTitle, yAxisTitle, false, series);
  }

  /**
   * A panel; {@code logarithmicX} for quantities spanning orders of magnitude (bytes of dense against
   * sparse runs).
   */
  public static ChartData of(String title, String xAxisTitle, String yAxisTitle, boolean logarithmicX,
      List<ChartSeries> series) {
    requireText(title, "title");
    requireText(xAxisTitle, "x axis title");
    requireText(yAxisTitle, "y axis title");
    List<ChartSeries> kept = new ArrayList<>();
    for (ChartSeries s : Objects.requireNonNull(series, "series")) {
      if (!s.isEmpty()) {
        kept.add(s);
      }
    }
    return new ChartData(title, xAxisTitle, yAxisTitle, logarithmicX, Collections.unmodifiableList(kept));
  }

  private static void requireText(String s, String what) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
  }

  public String title() {
    return title;
  }

  public String xAxisTitle() {
    return xAxisTitle;
  }

  public String yAxisTitle() {
    return yAxisTitle;
  }

  public boolean logarithmicX() {
    return logarithmicX;
  }

  public List<ChartSeries> series() {
    return series;
  }

  public boolean isEmpty() {
    return series.isEmpty();
  }

  /** The series called {@code name}, if this panel has it. */
  public Optional<ChartSeries> series(String name) {
    return series.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  @Override
  public String toString() {
    return "ChartData[" + title + ", " + series + "]";
  }
}
