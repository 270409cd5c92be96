package org.bitopk.lab.reproduction;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The compressor evaluation on real gradients: per compressor, averaged over the rounds of evaluation.csv, the
 * achieved k / target k (SIDCo's quality measure), the time per element and its ratio to exact TopK's, and the
 * relative error ‖c − C(c)‖/‖c‖ against exact TopK's at the same k. SIDCo's claim is judged on two counts:
 * achieved k within 0.8–1.2 of the target (the band SIDCo's own adaptive stage controller keeps) like DGC, and
 * a time per element below exact TopK's.
 */
final class EvaluationSection {
  static final String CSV = "evaluation.csv";
  static final List<String> COLUMNS = List.of("round", "compressor", "vectors", "d", "target_k", "achieved_k_mean",
      "ns_per_element", "relative_error_mean", "topk_relative_error_mean");

  private EvaluationSection() {}

  static String markdown(MeasuredOutput output) {
    CsvTable t = output.table();
    Map<String, double[]> sums = new LinkedHashMap<>();   // k ratio, ns, error, topk error, count, vectors
    for (Map<String, String> row : t.rows()) {
      double[] s = sums.computeIfAbsent(row.get("compressor"), c -> new double[6]);
      s[0] += t.number(row, "achieved_k_mean") / t.number(row, "target_k");
      s[1] += t.number(row, "ns_per_element");
      s[2] += t.number(row, "relative_error_mean");
      s[3] += t.number(row, "topk_relative_error_mean");
      s[4]++;
      s[5] += t.number(row, "vectors");
    }
    double topkNs = sums.containsKey("topk") ? sums.get("topk")[1] / sums.get("topk")[4] : Double.NaN;
    StringBuilder b = new StringBuilder("Means over the rounds of evaluation.csv (")
        .append(t.rows().size()).append(" rows).\n\n| compressor | rounds | vectors | achieved k / target k "
            + "| ns per element | time / exact TopK's | relative error | exact TopK's error | k within 0.8–1.2 "
            + "| faster than TopK |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<String, double[]> e : sums.entrySet()) {
      double[] s = e.getValue();
      double n = s[4];
      double ratio = s[0] / n;
      double ns = s[1] / n;
      b.append("| `").append(e.getKey()).append("` | ").append((long) n).append(" | ").append((long) s[5])
          .append(" | ").append(Numbers.fixed(ratio, 3)).append(" | ").append(Numbers.fixed(ns, 2)).append(" | ")
          .append(Numbers.fixed(ns / topkNs, 2)).append(" | ").append(Numbers.fixed(s[2] / n, 4)).append(" | ")
          .append(Numbers.fixed(s[3] / n, 4)).append(" | ").append(ratio >= 0.8 && ratio <= 1.2 ? "yes" : "no")
          .append(" | ").append(e.getKey().equals("topk") || Double.isNaN(topkNs) ? Numbers.NONE
              : ns < topkNs ? "yes" : "no").append(" |\n");
    }
    return b.append('\n').toString();
  }
}
