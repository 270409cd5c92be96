package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The downlink claim: for the bidirectional runs, the mean over rounds of nnz(p)/nnz(a) (what the server's TopK
 * keeps of the averaged uplinks' non-zeros), averaged over the runs at each P, against the published figure and
 * against 1/P (the ratio if the P supports of k entries each were disjoint and the server kept k).
 */
final class DownlinkRatioTable {
  private DownlinkRatioTable() {}

  static String markdown(ExperimentEvidence e) {
    Map<Integer, Double> published = e.grid().referenceDownlinkRatio().isEmpty() ? Published.DOWNLINK_RATIO
        : e.grid().referenceDownlinkRatio();
    Map<Integer, List<RunFigures>> byWorkers = new TreeMap<>();
    for (RunFigures r : e.runs()) {
      if (r.mode().equals("bidirectional") && !Double.isNaN(r.downNnzRatio())) {
        byWorkers.computeIfAbsent(r.workers(), w -> new ArrayList<>()).add(r);
      }
    }
    StringBuilder b = new StringBuilder("Mean over rounds of nnz(p)/nnz(a), bidirectional runs (averaged over the "
        + "runs at each P).\n\n| P | runs | paper | ours | difference | ours / paper | 1/P | ours × P |\n"
        + "|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<Integer, List<RunFigures>> w : byWorkers.entrySet()) {
      double ours = w.getValue().stream().mapToDouble(RunFigures::downNnzRatio).average().orElse(Double.NaN);
      double paper = published.getOrDefault(w.getKey(), Double.NaN);
      b.append("| ").append(w.getKey()).append(" | ").append(w.getValue().size()).append(" | ")
          .append(Numbers.fixed(paper, 3)).append(" | ").append(Numbers.fixed(ours, 4)).append(" | ")
          .append(Numbers.signed(ours - paper, 4)).append(" | ").append(Numbers.fixed(ours / paper, 2)).append(" | ")
          .append(Numbers.fixed(1.0 / w.getKey(), 4)).append(" | ").append(Numbers.fixed(ours * w.getKey(), 2))
          .append(" |\n");
    }
    if (byWorkers.isEmpty()) {
      b.append("| – | 0 | – | – | – | – | – | – |\n");
    }
    return b.append('\n').toString();
  }
}
