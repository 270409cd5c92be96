package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The "equal accuracy" claim: per P and mode the paper's final test accuracy, ours and the difference, then per
 * P the spread between the modes (the claim is that it is small), the paper's against ours. The paper's figures
 * are after 100 epochs; a grid that trains fewer says so next to the table. Rows kept from a previous version
 * of the section (a partial refresh) are placed by P and mode among the fresh ones and count in the spreads.
 */
final class AccuracyTable {
  /** How the table's header starts; a row's key is its first {@link #KEY_CELLS} cells (P and mode). */
  static final String HEADER_START = "| P | mode |";
  static final int KEY_CELLS = 2;
  private static final List<String> MODES = List.of("unidirectional", "bidirectional", "dense");

  private record Row(int workers, String mode, String line, double paper, double ours) {}

  private AccuracyTable() {}

  /** The keys (P, mode) of the rows the runs of {@code e} give. */
  static Set<List<String>> keys(ExperimentEvidence e) {
    Set<List<String>> out = new LinkedHashSet<>();
    for (RunFigures r : e.runs()) {
      out.add(List.of(Integer.toString(r.workers()), r.mode()));
    }
    return out;
  }

  static String markdown(ExperimentEvidence e) {
    return markdown(e, List.of());
  }

  /** @param kept rows of a previous version of the table, byte for byte, whose runs are not in {@code e} */
  static String markdown(ExperimentEvidence e, List<String> kept) {
    Optional<String> model = e.common("model");
    Optional<String> epochs = e.common("epochs");
    String ourEpochs = epochs.map(n -> "ours, " + n + (n.equals("1") ? " epoch" : " epochs")).orElse("ours");
    StringBuilder b = new StringBuilder();
    if (epochs.isPresent() && !epochs.get().equals(Integer.toString(Published.EPOCHS))) {
      b.append("**Note:** the paper's figures are after ").append(Published.EPOCHS).append(" epochs, ours after ")
          .append(epochs.get()).append(" (this is the quick grid): the difference includes the ")
          .append(Published.EPOCHS - Integer.parseInt(epochs.get())).append(" epochs we did not train.\n\n");
    }
    b.append("Final test accuracy (%), last epoch.\n\n")
        .append("| P | mode | lr (paper / ours) | paper, ").append(Published.EPOCHS).append(" epochs | ")
        .append(ourEpochs).append(" | difference (points) |\n|---|---|---|---|---|---|\n");
    List<Row> rows = new ArrayList<>();
    for (RunFigures r : e.runs()) {
      Optional<Published.Accuracy> paper = model.flatMap(m -> Published.accuracy(m, r.mode(), r.workers()));
      double ours = 100 * r.finalAccuracy();
      double published = paper.map(Published.Accuracy::percent).orElse(Double.NaN);
      rows.add(new Row(r.workers(), r.mode(), "| " + r.workers() + " | " + r.mode() + " | "
          + paper.map(p -> Numbers.plain(p.lr())).orElse(Numbers.NONE) + " / " + Numbers.plain(r.lr()) + " | "
          + Numbers.fixed(published, 2) + " | " + Numbers.fixed(ours, 2) + " | "
          + Numbers.signed(ours - published, 2) + " |", published, ours));
    }
    for (String line : kept) {
      List<String> c = PreviousSection.cells(line);
      rows.add(new Row(Integer.parseInt(c.get(0)), c.get(1), line, number(c.get(3)), number(c.get(4))));
    }
    // a stable sort: the runs' own order within a P and mode the grid does not name
    rows.sort(Comparator.comparingInt(Row::workers).thenComparingInt(r -> MODES.contains(r.mode())
        ? MODES.indexOf(r.mode()) : MODES.size()));
    Map<Integer, Map<String, double[]>> spreads = new TreeMap<>();
    for (Row r : rows) {
      b.append(r.line()).append('\n');
      spreads.computeIfAbsent(r.workers(), w -> new LinkedHashMap<>()).put(r.mode(), new double[] {r.paper(), r.ours()});
    }
    b.append("\nSpread between the modes at each P (highest minus lowest final accuracy, points): the claim is "
        + "that it is small.\n\n| P | modes | paper | ours |\n|---|---|---|---|\n");
    for (Map.Entry<Integer, Map<String, double[]>> p : spreads.entrySet()) {
      List<String> modes = new ArrayList<>();
      for (String m : MODES) {
        if (p.getValue().containsKey(m)) {
          modes.add(m);
        }
      }
      b.append("| ").append(p.getKey()).append(" | ").append(String.join(", ", modes)).append(" | ")
          .append(Numbers.fixed(spread(p.getValue(), 0), 2)).append(" | ")
          .append(Numbers.fixed(spread(p.getValue(), 1), 2)).append(" |\n");
    }
    return b.append('\n').toString();
  }

  private static double number(String cell) {
    return cell.equals(Numbers.NONE) ? Double.NaN : Double.parseDouble(cell.replace('−', '-'));
  }

  private static double spread(Map<String, double[]> byMode, int which) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (double[] v : byMode.values()) {
      if (Double.isNaN(v[which])) {
        return Double.NaN;
      }
      lo = Math.min(lo, v[which]);
      hi = Math.max(hi, v[which]);
    }
    return byMode.size() < 2 ? Double.NaN : hi - lo;
  }
}
