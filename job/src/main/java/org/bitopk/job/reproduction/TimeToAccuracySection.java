package org.bitopk.job.reproduction;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The DL4J comparison: time-to-accuracy.csv as a table, then the three goals, each with the two figures it
 * compares and whether it is met. Rows are told apart by their {@code system} text: one starting with
 * {@code bitopk} is ours (the fastest to the target counts), one naming {@code single} is DL4J's single-JVM
 * {@code fit}, every other row is a DL4J distributed training master. "DL4J's best" is, for time and for bytes
 * separately, the master with the smallest figure to the target; a master that never reached the target took
 * longer than its wall time and sent more than its total bytes, and those lower bounds compete too, so a goal is
 * met only when it holds against every master, and undetermined when it fails only against a bound.
 */
final class TimeToAccuracySection {
  static final String CSV = "time-to-accuracy.csv";
  static final String PNG = "time-to-accuracy.png";
  static final List<String> COLUMNS = List.of("system", "details", "target_accuracy", "seconds_to_target",
      "bytes_to_target", "final_accuracy", "accuracy_at_equal_time", "equal_time_seconds", "wall_seconds",
      "bytes_total");

  private TimeToAccuracySection() {}

  static String markdown(MeasuredOutput output) {
    CsvTable t = output.table();
    StringBuilder b = new StringBuilder("| system | details | target accuracy (%) | seconds to target | MiB to target "
        + "| final accuracy (%) | accuracy at equal time (%) | equal time s | wall s | MiB total |\n"
        + "|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, String> ours = null;
    Map<String, String> single = null;
    double[] masterSeconds = null;
    double[] masterBytes = null;
    for (Map<String, String> row : t.rows()) {
      b.append("| ").append(row.get("system")).append(" | ").append(row.get("details")).append(" | ")
          .append(Numbers.percent(t.number(row, "target_accuracy"))).append(" | ")
          .append(reached(Numbers.fixed(t.number(row, "seconds_to_target"), 1))).append(" | ")
          .append(reached(Numbers.mib(t.number(row, "bytes_to_target")))).append(" | ")
          .append(Numbers.percent(t.number(row, "final_accuracy"))).append(" | ")
          .append(Numbers.percent(t.number(row, "accuracy_at_equal_time"))).append(" | ")
          .append(Numbers.fixed(t.number(row, "equal_time_seconds"), 1)).append(" | ")
          .append(Numbers.fixed(t.number(row, "wall_seconds"), 1)).append(" | ")
          .append(Numbers.mib(t.number(row, "bytes_total"))).append(" |\n");
      String system = row.get("system").toLowerCase(Locale.ROOT);
      if (system.startsWith("bitopk")) {
        ours = faster(t, ours, row);
      } else if (system.contains("single")) {
        single = faster(t, single, row);
      } else {
        masterSeconds = smaller(masterSeconds, bound(t, row, "seconds_to_target", "wall_seconds"));
        masterBytes = smaller(masterBytes, bound(t, row, "bytes_to_target", "bytes_total"));
      }
    }
    b.append("\nEmpty cells: the target was not reached.\n\n| goal | ours | reference | ratio | met |\n"
        + "|---|---|---|---|---|\n");
    double ourSeconds = ours == null ? Double.NaN : t.number(ours, "seconds_to_target");
    double ourBytes = ours == null ? Double.NaN : t.number(ours, "bytes_to_target");
    goal(b, "time ≤ 0.1× DL4J's best distributed master", ourSeconds, masterSeconds, "s", r -> r <= 0.1, true);
    goal(b, "bytes ≥ 50× fewer than DL4J's best distributed master", ourBytes, masterBytes, "MiB",
        r -> r <= 1.0 / 50, true);
    goal(b, "time within 1.5× of a single-JVM fit", ourSeconds, single == null ? null
        : new double[] {t.number(single, "seconds_to_target"), 0}, "s", r -> r <= 1.5, false);
    return b.append('\n').toString();
  }

  private static String reached(String cell) {
    return cell.equals(Numbers.NONE) ? "" : cell;
  }

  /**
   * The reference's figure and whether it is only a lower bound ({@code [value, 1]}): a row that did not reach the
   * target gives its wall time or total bytes.
   */
  private static double[] bound(CsvTable t, Map<String, String> row, String reached, String total) {
    double v = t.number(row, reached);
    return Double.isNaN(v) ? new double[] {t.number(row, total), 1} : new double[] {v, 0};
  }

  private static void goal(StringBuilder b, String name, double ours, double[] reference, String unit,
      java.util.function.DoublePredicate met, boolean boundHelps) {
    String oursText = Double.isNaN(ours) ? "target not reached" : figure(ours, unit);
    if (reference == null) {
      b.append("| ").append(name).append(" | ").append(oursText).append(" | no such row | – | not determined |\n");
      return;
    }
    boolean lowerBound = reference[1] == 1;
    double ratio = ours / reference[0];
    String verdict;
    if (Double.isNaN(ours)) {
      verdict = "no";
    } else if (Double.isNaN(reference[0])) {
      verdict = "not determined";
    } else if (met.test(ratio)) {
      verdict = "yes";
    } else {
      verdict = lowerBound && boundHelps ? "not determined (the reference did not reach the target)" : "no";
    }
    b.append("| ").append(name).append(" | ").append(oursText).append(" | ")
        .append(lowerBound ? "> " : "").append(figure(reference[0], unit))
        .append(lowerBound ? " (did not reach the target)" : "").append(" | ")
        .append(lowerBound ? "< " : "").append(Numbers.fixed(ratio, 3)).append("× | ").append(verdict).append(" |\n");
  }

  private static String figure(double v, String unit) {
    return unit.equals("MiB") ? Numbers.mib(v) + " MiB" : Numbers.fixed(v, 1) + " s";
  }

  private static Map<String, String> faster(CsvTable t, Map<String, String> best, Map<String, String> row) {
    return best == null || less(t.number(row, "seconds_to_target"), t.number(best, "seconds_to_target")) ? row : best;
  }

  /** The smaller reference (a master's figure or its lower bound): the goal must hold against every master. */
  private static double[] smaller(double[] best, double[] candidate) {
    return best == null || less(candidate[0], best[0]) ? candidate : best;
  }

  /** a < b, where NaN (not reached) is larger than any figure. */
  private static boolean less(double a, double b) {
    return !Double.isNaN(a) && (Double.isNaN(b) || a < b);
  }
}
