package org.bitopk.lab.evaluation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The evaluation's files: {@code evaluation.csv}, whose columns another component reads and which therefore never
 * change, and {@code evaluation.md}, the same numbers with their ratios to exact TopK and the SIDCo paper's claim
 * checked against them.
 */
final class EvaluationOutput {
  /** The CSV header, exactly. */
  static final String CSV_HEADER = "round,compressor,vectors,d,target_k,achieved_k_mean,ns_per_element,"
      + "relative_error_mean,topk_relative_error_mean";

  /** The claim, quoted as the paper's reading in this project. */
  static final String CLAIM = "threshold estimation quality similar to DGC, lower compression overhead than "
      + "exact TopK";
  /** Slack of "similar to DGC": |k̂/k − 1| may exceed DGC's by this much. */
  static final double QUALITY_SLACK = 0.1;

  /** What the markdown says about the inputs. */
  record Context(String captures, int workers, double runDensity, double density, int warmups, int repeats,
      Map<Integer, Float> learningRates, String thresholdNote) {}

  private EvaluationOutput() {}

  static byte[] csv(List<CompressorEvaluation.Row> rows) {
    StringBuilder s = new StringBuilder(CSV_HEADER).append('\n');
    for (CompressorEvaluation.Row r : rows) {
      s.append(r.round()).append(',').append(r.compressor()).append(',').append(r.vectors()).append(',')
          .append(r.dimension()).append(',').append(r.targetK()).append(',').append(number(r.achievedKMean()))
          .append(',').append(number(r.nsPerElement())).append(',').append(number(r.relativeErrorMean()))
          .append(',').append(number(r.topkRelativeErrorMean())).append('\n');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Shortest text that reads back to the same double (Java's), never localised. */
  private static String number(double v) {
    return Double.toString(v);
  }

  static byte[] markdown(List<CompressorEvaluation.Row> rows, Context context) {
    StringBuilder s = new StringBuilder();
    s.append("# Compressors on real gradients\n\n");
    CompressorEvaluation.Row first = rows.get(0);
    s.append(String.format(Locale.ROOT, "Captured vectors c_i = e_i + lr·g_i of %s: P = %d workers, d = %d, the run's "
        + "uplink density %s. Evaluated at density %s (k = %d), %d timed passes after %d warm-up calls per vector, "
        + "single thread, after one untimed pass of every compressor over the first round (JIT warm-up); time per element is the median pass. Learning rate per round: %s. The machine and its "
        + "load are in environment.json.%n%n", context.captures(), context.workers(), first.dimension(),
        plain(context.runDensity()), plain(context.density()), first.targetK(), context.repeats(), context.warmups(),
        context.learningRates()));
    if (context.thresholdNote() != null) {
      s.append(context.thresholdNote()).append("\n\n");
    }
    Map<Integer, CompressorEvaluation.Row> topk = byRound(rows, "topk");
    Map<Integer, CompressorEvaluation.Row> dgc = byRound(rows, "dgc");
    s.append("| round | compressor | vectors | target k | achieved k (mean) | k̂/k | ns/element | time ÷ TopK "
        + "| relative error | TopK relative error | error ÷ TopK |\n");
    s.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CompressorEvaluation.Row r : rows) {
      CompressorEvaluation.Row t = topk.get(r.round());
      s.append(String.format(Locale.ROOT, "| %d | %s | %d | %d | %.1f | %.3f | %.3f | %.2f | %.4f | %.4f | %s |%n",
          r.round(), label(r.compressor()), r.vectors(), r.targetK(), r.achievedKMean(),
          r.achievedKMean() / r.targetK(), r.nsPerElement(), r.nsPerElement() / t.nsPerElement(),
          r.relativeErrorMean(), r.topkRelativeErrorMean(), ratio(r.relativeErrorMean(), r.topkRelativeErrorMean())));
    }

    s.append("\n## The SIDCo paper's claim\n\n");
    s.append("SIDCo (Abdelmoniem et al., MLSys 2021) claims **").append(CLAIM).append("**. Measured here, per "
        + "compressor and over every captured round:\n\n");
    s.append(String.format(Locale.ROOT, "- *quality*: the estimate's miss |k̂/k − 1| is at most DGC's + %.1f in every "
        + "round (DGC's miss per round: %s);%n", QUALITY_SLACK, dgc.isEmpty() ? "dgc not evaluated" : misses(dgc)));
    s.append("- *overhead*: fewer ns per element than exact TopK in every round. Exact TopK here is this project's "
        + "O(d) radix select on the CPU (compression/README.md, BENCHMARKS.md), not the sort-based GPU top-k the "
        + "paper measured against, so a threshold estimator has less to win.\n\n");
    s.append("| compressor | \\|k̂/k − 1\\| per round | quality similar to DGC? | time ÷ TopK per round | overhead lower "
        + "than TopK? |\n|---|---|---|---|---|\n");
    Map<String, List<CompressorEvaluation.Row>> byCompressor = new LinkedHashMap<>();
    for (CompressorEvaluation.Row r : rows) {
      byCompressor.computeIfAbsent(r.compressor(), c -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<String, List<CompressorEvaluation.Row>> e : byCompressor.entrySet()) {
      if (e.getKey().equals("topk")) {
        continue;
      }
      List<String> missText = new ArrayList<>();
      List<String> timeText = new ArrayList<>();
      boolean quality = !dgc.isEmpty();
      boolean faster = true;
      for (CompressorEvaluation.Row r : e.getValue()) {
        double miss = miss(r);
        missText.add(String.format(Locale.ROOT, "%.3f", miss));
        CompressorEvaluation.Row d = dgc.get(r.round());
        quality &= d != null && miss <= miss(d) + QUALITY_SLACK;
        double time = r.nsPerElement() / topk.get(r.round()).nsPerElement();
        timeText.add(String.format(Locale.ROOT, "%.2f", time));
        faster &= time < 1;
      }
      String qualityVerdict = e.getKey().equals("dgc") ? "(the reference)" : dgc.isEmpty() ? "n/a (no dgc)"
          : quality ? "agrees" : "does not agree";
      s.append("| ").append(label(e.getKey())).append(" | ").append(String.join(", ", missText)).append(" | ")
          .append(qualityVerdict).append(" | ").append(String.join(", ", timeText)).append(" | ")
          .append(faster ? "agrees" : "does not agree").append(" |\n");
    }
    s.append("\nThe claim is about the SIDCo variants; the other compressors are listed for comparison (Random-k "
        + "and a fixed threshold do not estimate a threshold for k).\n");
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String misses(Map<Integer, CompressorEvaluation.Row> dgc) {
    List<String> parts = new ArrayList<>();
    dgc.forEach((round, r) -> parts.add(String.format(Locale.ROOT, "round %d: %.3f", round, miss(r))));
    return String.join(", ", parts);
  }

  private static double miss(CompressorEvaluation.Row r) {
    return Math.abs(r.achievedKMean() / r.targetK() - 1);
  }

  private static Map<Integer, CompressorEvaluation.Row> byRound(List<CompressorEvaluation.Row> rows, String name) {
    Map<Integer, CompressorEvaluation.Row> m = new TreeMap<>();
    for (CompressorEvaluation.Row r : rows) {
      if (r.compressor().equals(name)) {
        m.put(r.round(), r);
      }
    }
    return m;
  }

  /** The spec text, with adaptive SIDCo named as such (its canonical text leaves the default out). */
  static String label(String spec) {
    return spec.startsWith("sidco") && !spec.contains(":") ? spec + ":stages=adaptive" : spec;
  }

  private static String ratio(double a, double b) {
    return b == 0 ? (a == 0 ? "1.000" : "∞") : String.format(Locale.ROOT, "%.3f", a / b);
  }

  private static String plain(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
