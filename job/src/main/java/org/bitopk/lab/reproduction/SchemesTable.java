package org.bitopk.lab.reproduction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The schemes grid: per (uplink feedback, downlink scheme) pair (and compressors, when not TopK both ways), the run
 * with the best final accuracy among the grid's learning rates, with what the scheme keeps in memory on each worker
 * and on the server and the bytes it moves per round; then every run. Memory is counted in floats beyond the model replica everyone holds (d = the
 * model's dimension, k = the downlink's k).
 */
final class SchemesTable {
  private SchemesTable() {}

  /** Name, worker memory, server memory of a pair "uplink-feedback/downlink-scheme". */
  private static String[] describe(String pair) {
    return switch (pair) {
      case "ef14/ef" -> new String[] {"EF14 + server EF (DoubleSqueeze; Zou's bidirectional TopK)", "d (e_i)",
          "d (e_s)"};
      case "ef14/ef21-p" -> new String[] {"EF14 + EF21-P", "d (e_i)", "d (r = x − w)"};
      case "ef21/ef" -> new String[] {"EF21 + server EF", "d (g_i)", "2d (g, e_s)"};
      case "ef21/ef21-p" -> new String[] {"EF21-BC (EF21 + EF21-P)", "d (g_i)", "2d (g, r)"};
      case "artemis/mcm" -> new String[] {"MCM (Artemis memory + preserved central model)", "d (h_i)",
          "2d + k (h, r = x − ŵ, Ω_prev)"};
      default -> new String[] {pair, "–", "–"};
    };
  }

  static String markdown(ExperimentEvidence e) {
    Map<String, List<RunFigures>> byScheme = new LinkedHashMap<>();
    for (RunFigures r : e.runs()) {
      byScheme.computeIfAbsent(pair(r), k -> new ArrayList<>()).add(r);
    }
    StringBuilder b = new StringBuilder("Best learning rate of the grid per scheme (by final test accuracy); memory in "
        + "floats beyond the model replica, d = the model's dimension, k = the downlink's k; bytes per round are "
        + "totals over the run divided by its rounds (uplink: all workers; downlink: one copy, and delivered to "
        + "every worker).\n\n| scheme | `uplink-feedback` / `downlink-scheme` | memory per worker | server memory | lr | "
        + "final accuracy (%) | best (%) | up KiB / round | down KiB / round | delivered KiB / round |\n"
        + "|---|---|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<String, List<RunFigures>> s : byScheme.entrySet()) {
      RunFigures best = null;
      for (RunFigures r : s.getValue()) {
        if (best == null || (!Double.isNaN(r.finalAccuracy())
            && (Double.isNaN(best.finalAccuracy()) || r.finalAccuracy() > best.finalAccuracy()))) {
          best = r;
        }
      }
      String pair = s.getKey().split(" ")[0];
      String[] d = describe(pair);
      String compressors = s.getKey().contains(" ") ? ", " + s.getKey().substring(pair.length() + 1) : "";
      b.append("| ").append(d[0]).append(compressors).append(" | `").append(s.getKey()).append("` | ").append(d[1]).append(" | ")
          .append(d[2]).append(" | ").append(Numbers.plain(best.lr())).append(" | ")
          .append(Numbers.percent(best.finalAccuracy())).append(" | ").append(Numbers.percent(best.bestAccuracy()))
          .append(" | ").append(perRound(best.upBytes(), best)).append(" | ").append(perRound(best.downBytes(), best))
          .append(" | ").append(perRound(best.downBytesDelivered(), best)).append(" |\n");
    }
    b.append("\nEvery run:\n\n| run | scheme | lr | final accuracy (%) | best (%) | up MiB | down MiB delivered |\n"
        + "|---|---|---|---|---|---|---|\n");
    for (RunFigures r : e.runs()) {
      b.append("| ").append(r.point().name()).append(" | `").append(pair(r)).append("` | ")
          .append(Numbers.plain(r.lr())).append(" | ").append(Numbers.percent(r.finalAccuracy())).append(" | ")
          .append(Numbers.percent(r.bestAccuracy())).append(" | ").append(Numbers.mib(r.upBytes())).append(" | ")
          .append(Numbers.mib(r.downBytesDelivered())).append(" |\n");
    }
    return b.append('\n').toString();
  }

  /** "uplink-feedback/downlink-scheme", followed by " uplink/downlink" when the compressors are not TopK both ways. */
  private static String pair(RunFigures r) {
    String up = r.setting("uplink", "topk");
    String down = r.setting("downlink", "topk");
    boolean topk = up.startsWith("topk") && down.startsWith("topk");
    return r.setting("uplink-feedback", "ef14") + "/" + r.setting("downlink-scheme", "ef")
        + (topk ? "" : " " + up + "/" + down);
  }

  private static String perRound(long bytes, RunFigures r) {
    return r.rounds() == 0 ? Numbers.NONE : Numbers.fixed(bytes / 1024.0 / r.rounds(), 2);
  }
}
