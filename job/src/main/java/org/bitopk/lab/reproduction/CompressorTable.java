package org.bitopk.lab.reproduction;

/**
 * The compressor grid: per uplink compressor its final accuracy and the difference to TopK's, the mean achieved
 * k / target k (SIDCo's own quality measure: 1 is a perfect threshold estimate), and the bytes sent up and
 * delivered down, with the uplink bytes relative to TopK's.
 */
final class CompressorTable {
  private CompressorTable() {}

  static String markdown(ExperimentEvidence e) {
    RunFigures topk = null;
    for (RunFigures r : e.runs()) {
      if (r.setting("uplink", "").equals("topk")) {
        topk = r;
      }
    }
    StringBuilder b = new StringBuilder("| run | uplink | final accuracy (%) | vs topk (points) | achieved k / target k "
        + "| up MiB | up bytes / topk's | down MiB delivered |\n|---|---|---|---|---|---|---|---|\n");
    for (RunFigures r : e.runs()) {
      b.append("| ").append(r.point().name()).append(" | `").append(r.setting("uplink", "")).append("` | ")
          .append(Numbers.percent(r.finalAccuracy())).append(" | ")
          .append(topk == null ? Numbers.NONE : Numbers.signed(100 * (r.finalAccuracy() - topk.finalAccuracy()), 2))
          .append(" | ").append(Numbers.fixed(r.achievedOverTargetUp(), 3)).append(" | ")
          .append(Numbers.mib(r.upBytes())).append(" | ")
          .append(topk == null ? Numbers.NONE : Numbers.fixed((double) r.upBytes() / topk.upBytes(), 2)).append(" | ")
          .append(Numbers.mib(r.downBytesDelivered())).append(" |\n");
    }
    return b.append('\n').toString();
  }
}
