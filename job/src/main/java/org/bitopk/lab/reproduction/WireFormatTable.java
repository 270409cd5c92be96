package org.bitopk.lab.reproduction;

import java.util.Locale;

/**
 * The value formats grid: per format (up / down) the final accuracy and its difference to fp32's, whether it is
 * at most {@link #TOLERANCE_POINTS} points below (the target for fp16 and bf16; int8's is stated, not targeted), and the
 * bytes it moves: per round (uplink: all workers' messages; downlink: one copy of the broadcast, and as delivered
 * to every worker, initial model and snapshots included) and per transmitted coordinate (bytes over {@code up_nnz}
 * and {@code down_nnz}, headers and indices included).
 */
final class WireFormatTable {
  /** How far below fp32's final accuracy fp16 and bf16 may end, in points. */
  static final double TOLERANCE_POINTS = 0.3;

  private WireFormatTable() {}

  static String markdown(ExperimentEvidence e) {
    RunFigures fp32 = null;
    for (RunFigures r : e.runs()) {
      if (format(r, "values-up").equals("fp32") && format(r, "values-down").equals("fp32")) {
        fp32 = r;
      }
    }
    StringBuilder b = new StringBuilder("Final test accuracy after the last epoch against fp32's; bytes per round are "
        + "the run's totals over its rounds; bytes per coordinate are the messages' bytes (headers, indices and "
        + "values) over the coordinates they carry.\n\n| values (up / down) | final accuracy (%) | vs fp32 (points) "
        + "| at most " + TOLERANCE_POINTS + " points below fp32 | up KiB / round | down KiB / round | delivered KiB / "
        + "round | up bytes / coordinate | down bytes / coordinate |\n|---|---|---|---|---|---|---|---|---|\n");
    for (RunFigures r : e.runs()) {
      String up = format(r, "values-up");
      String down = format(r, "values-down");
      double diff = fp32 == null ? Double.NaN : 100 * (r.finalAccuracy() - fp32.finalAccuracy());
      b.append("| ").append(up).append(" / ").append(down).append(" | ").append(Numbers.percent(r.finalAccuracy()))
          .append(" | ").append(r == fp32 ? "reference" : Numbers.signed(diff, 2)).append(" | ")
          .append(r == fp32 ? Numbers.NONE : verdict(up, down, diff)).append(" | ")
          .append(perRound(r.upBytes(), r)).append(" | ").append(perRound(r.downBytes(), r)).append(" | ")
          .append(perRound(r.downBytesDelivered(), r)).append(" | ")
          .append(perCoordinate(r.upBytes(), r.upCoordinates())).append(" | ")
          .append(perCoordinate(r.downBytes(), r.downCoordinates())).append(" |\n");
    }
    return b.append('\n').toString();
  }

  /** "met" / "not met" for the targeted 16-bit formats, "yes" / "no" (no target) otherwise. */
  static String verdict(String up, String down, double diffPoints) {
    if (Double.isNaN(diffPoints)) {
      return Numbers.NONE;
    }
    boolean within = diffPoints >= -TOLERANCE_POINTS;
    boolean targeted = sixteenBit(up) && sixteenBit(down);
    return targeted ? (within ? "met (target)" : "not met (target)") : (within ? "yes (no target)" : "no (no target)");
  }

  private static boolean sixteenBit(String format) {
    return format.equals("fp16") || format.equals("bf16") || format.equals("fp32");
  }

  private static String format(RunFigures r, String key) {
    return r.setting(key, "fp32").toLowerCase(Locale.ROOT);
  }

  private static String perRound(long bytes, RunFigures r) {
    return r.rounds() == 0 ? Numbers.NONE : Numbers.fixed(bytes / 1024.0 / r.rounds(), 2);
  }

  private static String perCoordinate(long bytes, long coordinates) {
    return coordinates == 0 ? Numbers.NONE : Numbers.fixed((double) bytes / coordinates, 2);
  }
}
