package org.bitopk.lab.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code time-to-accuracy.csv}: one row per system with the columns of {@link #COLUMNS} (read by other
 * components: keep them as they are). An empty cell means "not reached" (or, for bytes, not counted).
 *
 * <ul>
 *   <li>{@code seconds_to_target}, {@code bytes_to_target}: at the first evaluation whose accuracy is at least the
 *       target;</li>
 *   <li>{@code equal_time_seconds}: the shortest training time among the systems that trained (each trains until
 *       its budget or its epochs), the same value on every row; {@code accuracy_at_equal_time}: the accuracy of
 *       the last evaluation at or before it;</li>
 *   <li>{@code wall_seconds}, {@code bytes_total}, {@code final_accuracy}: at the last evaluation;</li>
 *   <li>{@code cold_seconds_to_target}: with {@code --cold}, wall seconds from launching the system's own JVM to
 *       its trace at the target ({@link ColdStart}), empty when there is none; {@code cold_details} says how it
 *       ran or why there is no figure (also "not measured (no --cold)").</li>
 *   <li>{@code ms_compute}, {@code ms_communication}, {@code ms_rest}: where the training clock of its rounds went,
 *       mean milliseconds per round over all of them ({@link RoundSplit}); empty for a system that does not
 *       measure it.</li>
 * </ul>
 * The other seconds are training clock: start-up and evaluations excluded.
 */
public final class ComparisonTable {
  public static final List<String> COLUMNS = List.of("system", "details", "target_accuracy", "seconds_to_target",
      "bytes_to_target", "final_accuracy", "accuracy_at_equal_time", "equal_time_seconds", "wall_seconds",
      "bytes_total", "cold_seconds_to_target", "cold_details", "ms_compute", "ms_communication", "ms_rest");
  public static final String FILE = "time-to-accuracy.csv";

  private ComparisonTable() {}

  /** The shortest training time among systems with at least one evaluation after the start; empty if none. */
  static Optional<Double> equalTime(List<SystemResult> results) {
    return results.stream().filter(r -> r.trace().points().size() > 1 && r.failure() == null)
        .map(SystemResult::wallSeconds).min(Double::compare);
  }

  /** The CSV text, header first; {@code cold} by row label (a row it lacks: {@link ColdResult#NOT_MEASURED}). */
  static String csv(List<SystemResult> results, double target, Map<String, ColdResult> cold) {
    Optional<Double> equal = equalTime(results);
    StringBuilder out = new StringBuilder(String.join(",", COLUMNS)).append('\n');
    for (SystemResult r : results) {
      Optional<TracePoint> reached = r.trace().firstReaching(target);
      Optional<TracePoint> last = r.trace().last();
      Optional<TracePoint> atEqual = equal.flatMap(t -> r.trace().at(t));
      String details = r.failure() == null ? r.details() : "FAILED: " + r.failure() + "; " + r.details();
      List<String> cells = new ArrayList<>();
      cells.add(r.system());
      cells.add(details);
      cells.add(number(target));
      cells.add(reached.map(p -> number(p.seconds())).orElse(""));
      cells.add(r.bytesMeasured() ? reached.map(p -> Long.toString(p.bytes())).orElse("") : "");
      cells.add(last.filter(p -> r.trace().points().size() > 1).map(p -> number(p.accuracy())).orElse(""));
      cells.add(atEqual.map(p -> number(p.accuracy())).orElse(""));
      cells.add(equal.map(ComparisonTable::number).orElse(""));
      cells.add(last.map(p -> number(p.seconds())).orElse(""));
      cells.add(r.bytesMeasured() ? last.map(p -> Long.toString(p.bytes())).orElse("") : "");
      ColdResult c = cold.getOrDefault(r.system(), ColdResult.NOT_MEASURED);
      cells.add(c.seconds().isPresent() ? number(c.seconds().getAsDouble()) : "");
      cells.add(c.details());
      cells.addAll(splitCells(r.trace().split()));
      out.append(row(cells)).append('\n');
    }
    return out.toString();
  }

  /**
   * A trace's CSV: {@code system,rounds,seconds,bytes,accuracy,test_loss,ms_compute,ms_communication,ms_rest}, one
   * line per evaluation, the last three over the rounds since the previous one (empty without any).
   */
  static String traceCsv(SystemResult r) {
    StringBuilder out = new StringBuilder("system,rounds,seconds,bytes,accuracy,test_loss,ms_compute,"
        + "ms_communication,ms_rest\n");
    List<TracePoint> points = r.trace().points();
    List<RoundSplit> splits = r.trace().splits();
    for (int i = 0; i < points.size(); i++) {
      TracePoint p = points.get(i);
      List<String> cells = new ArrayList<>(List.of(r.system(), Long.toString(p.rounds()), number(p.seconds()),
          r.bytesMeasured() ? Long.toString(p.bytes()) : "", number(p.accuracy()), number(p.testLoss())));
      cells.addAll(splitCells(splits.isEmpty() ? Optional.empty() : Optional.of(splits.get(i))));
      out.append(row(cells)).append('\n');
    }
    return out.toString();
  }

  /** Mean milliseconds per round of compute, communication and rest; empty cells without a split or rounds. */
  private static List<String> splitCells(Optional<RoundSplit> split) {
    if (split.isEmpty() || split.get().rounds() == 0) {
      return List.of("", "", "");
    }
    double[] m = split.get().perRound();
    return List.of(number(m[0]), number(m[1]), number(m[2]));
  }

  /**
   * The console's table of where the rounds' time went: per system seconds per round and its split (systems
   * without one: a dash).
   */
  static String splitTable(List<SystemResult> results) {
    int width = Math.max(6, results.stream().mapToInt(r -> r.system().length()).max().orElse(0));
    String format = "%-" + width + "s %10s %10s %14s %10s%n";
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, format, "system", "ms/round", "compute",
        "communication", "rest"));
    for (SystemResult r : results) {
      Optional<double[]> m = r.trace().split().filter(s -> s.rounds() > 0).map(RoundSplit::perRound);
      List<String> cells = m.map(v -> List.of(v[0] + v[1] + v[2], v[0], v[1], v[2]).stream()
          .map(x -> String.format(Locale.ROOT, "%.1f", x)).toList()).orElse(List.of("-", "-", "-", "-"));
      out.append(String.format(Locale.ROOT, format, r.system(), cells.get(0), cells.get(1), cells.get(2),
          cells.get(3)));
    }
    return out.toString();
  }

  static String number(double v) {
    return String.format(Locale.ROOT, "%.6g", v).replaceAll("(\\.\\d*?)0+($|e)", "$1$2").replaceAll("\\.($|e)", "$1");
  }

  /** RFC 4180: cells with a comma, quote or line break are quoted, quotes doubled. */
  static String row(List<String> cells) {
    List<String> quoted = new ArrayList<>();
    for (String c : cells) {
      String flat = c.replace('\n', ' ').replace('\r', ' ');
      quoted.add(flat.contains(",") || flat.contains("\"") ? "\"" + flat.replace("\"", "\"\"") + "\"" : flat);
    }
    return String.join(",", quoted);
  }
}
