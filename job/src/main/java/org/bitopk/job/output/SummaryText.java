package org.bitopk.job.output;

import java.util.Arrays;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Locale;
import org.bitopk.job.engine.RunSummary;
import org.bitopk.job.engine.SteadyPace;

/** Renders the one-screen summary printed at the end of a run and saved as summary.txt. */
public final class SummaryText {
  private SummaryText() {}

  /**
   * What was read: training and test examples (-1: the problem has none, e.g. the counterexample) and the
   * examples per worker shard.
   */
  public record Data(int trainExamples, int testExamples, int[] shardSizes) {
    public Data {
      shardSizes = shardSizes.clone();
    }

    /** "60,000 train, 10,000 test; shards of 15,000 (4 workers)" or with the range of shard sizes. */
    String describe() {
      IntSummaryStatistics sizes = Arrays.stream(shardSizes).summaryStatistics();
      String shards = sizes.getMin() == sizes.getMax()
          ? String.format(Locale.ROOT, "%,d each", sizes.getMin())
          : String.format(Locale.ROOT, "%,d to %,d", sizes.getMin(), sizes.getMax());
      return String.format(Locale.ROOT, "%,d train, %,d test examples; worker shards of %s (%,d used)",
          trainExamples, testExamples, shards, sizes.getSum());
    }
  }

  /**
   * @param data what was read (a negative count of training examples: the problem has none)
   * @param missingIterations ranges of rounds whose metric lines were lost before a resume ("5-9")
   */
  public static String render(RunSummary s, String output, String modelFile, Data data,
      List<String> missingIterations) {
    StringBuilder b = new StringBuilder();
    b.append("bitopk run ").append(s.runId()).append('\n');
    row(b, "problem", s.problem() + " (d = " + String.format(Locale.ROOT, "%,d", s.dimension()) + ")");
    if (data.trainExamples() >= 0) {
      row(b, "data", data.describe());
    }
    row(b, "mode", s.mode() + ", " + s.workers() + " workers in " + s.tasks() + " Spark task(s) per round");
    row(b, "iterations", String.format(Locale.ROOT, "%,d in %d epoch(s), %.1f s, median %.1f ms/iteration",
        s.iterations(), s.epochs(), s.seconds(), s.medianIterationMs()));
    row(b, "warm-up", warmUp(s.pace()));
    row(b, "train loss", String.format(Locale.ROOT, "%.4f (last epoch)", s.finalTrainLoss()));
    if (s.finalTestAccuracy() != null) {
      row(b, "test", String.format(Locale.ROOT, "loss %.4f, accuracy %.2f%%", s.finalTestLoss(),
          100 * s.finalTestAccuracy()));
    } else if (s.finalTestLoss() != null) {
      row(b, "objective", String.format(Locale.ROOT, "%.4f", s.finalTestLoss()));
    }
    if (s.finalOptimalityGap() != null) {
      row(b, "F - F*", String.format(Locale.ROOT, "%.4f", s.finalOptimalityGap()));
    }
    row(b, "uplink", bytes(s.cumulativeUpBytes(), s.denseUpBytes()));
    row(b, "downlink", bytes(s.cumulativeDownBytes(), s.denseDownBytes()) + " per receiver");
    row(b, "delivered", bytes(s.counters().downDeliveredBytes(), s.denseDownBytes() * s.workers())
        + " to " + s.workers() + " workers");
    row(b, "lost residuals", Long.toString(s.lostResiduals()));
    if (s.movedWorkers() > 0) {
      row(b, "moved workers", s.movedWorkers() + " (to other executors, with their state, as executors came and went)");
    }
    if (!s.roundsToWork().isEmpty()) {
      row(b, "new executors", s.roundsToWork().size() + ", working " + s.roundsToWork().stream().map(String::valueOf)
          .collect(java.util.stream.Collectors.joining(", ")) + " round(s) after registering");
    }
    if (s.counters().rolledBackSteps() > 0) {
      row(b, "redone steps", s.counters().rolledBackSteps() + " (task attempts retried after taking their step)");
    }
    row(b, "replica resyncs", Long.toString(s.replicaResyncs()));
    if (!missingIterations.isEmpty()) {
      row(b, "metric gaps", "no lines for iteration(s) " + String.join(", ", missingIterations)
          + " (lost before a resume)");
    }
    row(b, "model", modelFile);
    row(b, "output", output);
    return b.toString();
  }

  /** "steady pace from round 212 (3.1 s of rounds before it); round times 15.0 s, 1.85x rounds x median". */
  static String warmUp(SteadyPace p) {
    return String.format(Locale.ROOT, "steady pace from round %,d (%.1f s of rounds before it); round times %.1f s,"
        + " %.2fx rounds x median", p.roundsToSteadyPace(), p.warmUpMs() / 1000, p.roundTimeSumMs() / 1000,
        p.roundTimeSumRatio());
  }

  private static String bytes(long sent, long dense) {
    double ratio = sent == 0 ? Double.POSITIVE_INFINITY : (double) dense / sent;
    return String.format(Locale.ROOT, "%s (dense would be %s, %.1fx less)", human(sent), human(dense), ratio);
  }

  static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  private static void row(StringBuilder b, String key, String value) {
    b.append(String.format(Locale.ROOT, "  %-16s %s%n", key, value));
  }
}
