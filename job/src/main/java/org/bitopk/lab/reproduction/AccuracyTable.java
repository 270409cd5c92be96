package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The "equal accuracy" claim: per P and mode the paper's final test accuracy, ours and the difference, then per
 * P the spread between the modes (the claim is that it is small), the paper's against ours. The paper's figures
 * are after 100 epochs; a grid that trains fewer says so next to the table.
 */
final class AccuracyTable {
  private static final List<String> MODES = List.of("unidirectional", "bidirectional", "dense");

  private AccuracyTable() {}

  static String markdown(ExperimentEvidence e) {
    String model = e.common("model");
    String epochs = e.common("epochs");
    String ourEpochs = epochs == null ? "ours" : "ours, " + epochs + (epochs.equals("1") ? " epoch" : " epochs");
    StringBuilder b = new StringBuilder();
    if (epochs != null && !epochs.equals(Integer.toString(Published.EPOCHS))) {
      b.append("**Note:** the paper's figures are after ").append(Published.EPOCHS).append(" epochs, ours after ")
          .append(epochs).append(" (this is the quick grid): the difference includes the ")
          .append(Published.EPOCHS - Integer.parseInt(epochs)).append(" epochs we did not train.\n\n");
    }
    b.append("Final test accuracy (%), last epoch.\n\n")
        .append("| P | mode | lr (paper / ours) | paper, ").append(Published.EPOCHS).append(" epochs | ")
        .append(ourEpochs).append(" | difference (points) |\n|---|---|---|---|---|---|\n");
    Map<Integer, Map<String, double[]>> spreads = new TreeMap<>();
    for (RunFigures r : e.runs()) {
      Published.Accuracy paper = model == null ? null : Published.accuracy(model, r.mode(), r.workers());
      double ours = 100 * r.finalAccuracy();
      double published = paper == null ? Double.NaN : paper.percent();
      b.append("| ").append(r.workers()).append(" | ").append(r.mode()).append(" | ")
          .append(paper == null ? Numbers.NONE : Numbers.plain(paper.lr())).append(" / ").append(Numbers.plain(r.lr()))
          .append(" | ").append(Numbers.fixed(published, 2)).append(" | ").append(Numbers.fixed(ours, 2))
          .append(" | ").append(Numbers.signed(ours - published, 2)).append(" |\n");
      spreads.computeIfAbsent(r.workers(), w -> new LinkedHashMap<>()).put(r.mode(), new double[] {published, ours});
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
