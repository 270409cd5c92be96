package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoublePredicate;
import org.jspecify.annotations.Nullable;

/**
 * The DL4J comparison: time-to-accuracy.csv as a table, then the three goals, each with the two figures it
 * compares and whether it is met. Rows are told apart by their {@code system} text: one starting with
 * {@code bitopk} is ours, one naming {@code single} is DL4J's single-JVM {@code fit}, every other row is a DL4J
 * distributed training master. Ours is, per goal, the bitopk row with the smallest figure to the target (the
 * fastest for the time goals, the one that moved the fewest bytes for the bytes goal).
 *
 * <p>A goal against "DL4J's best master" must hold against every master, so each master is judged on its own: a
 * master that reached the target gives its figure; one that never did took longer than its wall time and sent
 * more than its total bytes, a lower bound, against which a goal can be shown to hold but never to fail. The goal
 * is not met when it fails against any master's figure, undetermined when it fails only against bounds, and met
 * otherwise. A row whose details say {@code FAILED} never trained and bounds nothing (a wall time of zero would
 * make every goal undetermined), so it is left out of the references and named below the goals.
 *
 * <p>An output of {@code time-to-accuracy --cold} adds a column, each system's seconds from launching its own JVM to
 * the target (or why there are none); the goals stay on the warm figures. An output without cold runs, or from the
 * version before them (its ten columns), shows none. Its last three columns say where each row's rounds' time went
 * (their sections show them); an output from before them (twelve columns) has none.
 */
final class TimeToAccuracySection {
  static final String CSV = "time-to-accuracy.csv";
  static final String PNG = "time-to-accuracy.png";
  static final List<String> COLUMNS = List.of("system", "details", "target_accuracy", "seconds_to_target",
      "bytes_to_target", "final_accuracy", "accuracy_at_equal_time", "equal_time_seconds", "wall_seconds",
      "bytes_total", "cold_seconds_to_target", "cold_details", "ms_compute", "ms_communication", "ms_rest");
  /** The columns before cold runs: such an output is read as one without them. */
  static final List<String> EARLIER_COLUMNS = COLUMNS.subList(0, 10);
  /** The columns from cold runs on, before the rounds' split: such an output is read as one without it. */
  static final List<String> COLD_COLUMNS = COLUMNS.subList(0, 12);
  /** The columns of every earlier version, each read as an output without the later ones. */
  static final List<List<String>> EARLIER_VERSIONS = List.of(EARLIER_COLUMNS, COLD_COLUMNS);
  /** The last columns, of an output that measured where its rounds' time went. */
  static final List<String> SPLIT_COLUMNS = COLUMNS.subList(12, 15);
  static final String COLD_HEADER = "cold s, launch to target";
  static final String COLD_NOTE = "Cold: seconds from launching the system's own JVM, with no warm-up, to its trace "
      + "at the target (`time-to-accuracy --cold`): JVM and Spark start, executors, data, shards, JIT and its "
      + "evaluations included.";
  private static final String NOT_MEASURED = "not measured";
  private static final String FAILED = "FAILED";

  private TimeToAccuracySection() {}

  /** One system's figure for a goal: to the target, or (never reached) a lower bound from its totals. */
  record Figure(String system, double value, boolean lowerBound) {}

  static String markdown(MeasuredOutput output) {
    CsvTable t = output.table();
    boolean cold = measuredCold(t);
    StringBuilder b = new StringBuilder("| system | details | target accuracy (%) | seconds to target | MiB to target "
        + "| final accuracy (%) | accuracy at equal time (%) | equal time s | wall s | MiB total |"
        + (cold ? " " + COLD_HEADER + " |" : "") + "\n|---|---|---|---|---|---|---|---|---|---|" + (cold ? "---|" : "")
        + "\n");
    List<Figure> oursSeconds = new ArrayList<>();
    List<Figure> oursBytes = new ArrayList<>();
    List<Figure> singleSeconds = new ArrayList<>();
    List<Figure> masterSeconds = new ArrayList<>();
    List<Figure> masterBytes = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    for (Map<String, String> row : t.rows()) {
      b.append("| ").append(row.get("system")).append(" | ").append(row.get("details")).append(" | ")
          .append(Numbers.percent(t.number(row, "target_accuracy"))).append(" | ")
          .append(reached(Numbers.fixed(t.number(row, "seconds_to_target"), 1))).append(" | ")
          .append(reached(Numbers.mib(t.number(row, "bytes_to_target")))).append(" | ")
          .append(Numbers.percent(t.number(row, "final_accuracy"))).append(" | ")
          .append(Numbers.percent(t.number(row, "accuracy_at_equal_time"))).append(" | ")
          .append(Numbers.fixed(t.number(row, "equal_time_seconds"), 1)).append(" | ")
          .append(Numbers.fixed(t.number(row, "wall_seconds"), 1)).append(" | ")
          .append(Numbers.mib(t.number(row, "bytes_total"))).append(cold ? " | " + cold(t, row) : "")
          .append(" |\n");
      String name = row.get("system");
      String system = name.toLowerCase(Locale.ROOT);
      if (row.get("details").startsWith(FAILED)) {
        failed.add(name);
      } else if (system.startsWith("bitopk")) {
        oursSeconds.add(new Figure(name, t.number(row, "seconds_to_target"), false));
        oursBytes.add(new Figure(name, t.number(row, "bytes_to_target"), false));
      } else if (system.contains("single")) {
        singleSeconds.add(new Figure(name, t.number(row, "seconds_to_target"), false));
      } else {
        masterSeconds.add(figure(t, row, "seconds_to_target", "wall_seconds"));
        masterBytes.add(figure(t, row, "bytes_to_target", "bytes_total"));
      }
    }
    b.append("\nEmpty cells: the target was not reached.").append(cold ? " " + COLD_NOTE : "")
        .append("\n\n| goal | ours | reference | ratio | met |\n"
        + "|---|---|---|---|---|\n");
    goal(b, "time ≤ 0.1× DL4J's best distributed master", smallest(oursSeconds), masterSeconds, "s",
        r -> r <= 0.1);
    goal(b, "bytes ≥ 50× fewer than DL4J's best distributed master", smallest(oursBytes), masterBytes, "MiB",
        r -> r <= 1.0 / 50);
    goal(b, "time within 1.5× of a single-JVM fit", smallest(oursSeconds), singleSeconds, "s", r -> r <= 1.5);
    if (!failed.isEmpty()) {
      b.append("\nNot a reference (failed before training, see its details): ").append(String.join(", ", failed))
          .append(".\n");
    }
    return b.append('\n').toString();
  }

  /** Whether any row was measured cold (an earlier output has no cold columns at all). */
  static boolean measuredCold(CsvTable t) {
    return t.rows().stream().anyMatch(r -> r.get("cold_details") != null
        && !r.get("cold_details").startsWith(NOT_MEASURED));
  }

  /** A row's cold seconds, or the first clause of why there are none ("not within 540 s", "FAILED: ..."). */
  static String cold(CsvTable t, Map<String, String> row) {
    double seconds = t.number(row, "cold_seconds_to_target");
    String details = row.get("cold_details") == null ? NOT_MEASURED : row.get("cold_details");
    return !Double.isNaN(seconds) ? Numbers.fixed(seconds, 1)
        : details.contains("; ") ? details.substring(0, details.indexOf("; ")) : details;
  }

  private static String reached(String cell) {
    return cell.equals(Numbers.NONE) ? "" : cell;
  }

  /** A master's figure to the target, or, if it never reached it, its total as a lower bound. */
  static Figure figure(CsvTable t, Map<String, String> row, String reached, String total) {
    double v = t.number(row, reached);
    return Double.isNaN(v) ? new Figure(row.get("system"), t.number(row, total), true)
        : new Figure(row.get("system"), v, false);
  }

  /** The smallest figure (NaN: not reached, skipped), or null when there is none. */
  private static @Nullable Figure smallest(List<Figure> figures) {
    Figure best = null;
    for (Figure f : figures) {
      if (!Double.isNaN(f.value()) && (best == null || f.value() < best.value())) {
        best = f;
      }
    }
    return best;
  }

  static void goal(StringBuilder b, String name, Figure ours, List<Figure> references, String unit,
      DoublePredicate met) {
    String oursText = ours == null ? "target not reached" : text(ours.value(), unit) + " (" + ours.system() + ")";
    List<Figure> known = references.stream().filter(f -> !Double.isNaN(f.value())).toList();
    if (known.isEmpty()) {
      String why = references.isEmpty() ? "no such row" : "did not reach the target";
      b.append("| ").append(name).append(" | ").append(oursText).append(" | ").append(why)
          .append(" | – | ").append(ours == null ? "no" : "not determined").append(" |\n");
      return;
    }
    // decisive: the smallest figure the goal fails against, else the smallest bound it is unknown against, else
    // the smallest figure of all (the hardest reference it holds against)
    Figure fails = null;
    Figure unknown = null;
    for (Figure f : known) {
      boolean holds = ours != null && met.test(ours.value() / f.value());
      if (!holds && (!f.lowerBound() || ours == null)) {
        fails = fails == null || f.value() < fails.value() ? f : fails;
      } else if (!holds) {
        unknown = unknown == null || f.value() < unknown.value() ? f : unknown;
      }
    }
    Figure shown = fails != null ? fails : unknown != null ? unknown : smallest(known);
    String verdict = fails != null ? "no" : unknown != null
        ? "not determined (" + unknown.system() + " did not reach the target)" : "yes";
    b.append("| ").append(name).append(" | ").append(oursText).append(" | ")
        .append(shown.lowerBound() ? "> " : "").append(text(shown.value(), unit)).append(" (")
        .append(shown.system()).append(shown.lowerBound() ? ", did not reach the target" : "").append(") | ");
    if (ours == null) {
      b.append("–");
    } else {
      b.append(shown.lowerBound() ? "< " : "").append(Numbers.fixed(ours.value() / shown.value(), 3)).append('×');
    }
    b.append(" | ").append(verdict).append(" |\n");
  }

  private static String text(double v, String unit) {
    return unit.equals("MiB") ? Numbers.mib(v) + " MiB" : Numbers.fixed(v, 1) + " s";
  }
}
