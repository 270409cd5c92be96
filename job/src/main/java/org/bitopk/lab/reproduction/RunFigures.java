package org.bitopk.lab.reproduction;

import com.fasterxml.jackson.databind.JsonNode;
import org.bitopk.job.report.MetricTable;
import org.bitopk.job.report.RunMetrics;
import org.bitopk.lab.experiment.GridPoint;

/**
 * The figures of one finished run, recomputed here from its own metric lines rather than taken from the
 * runner's results.csv, so that a results.csv that disagrees with its runs is found, not quoted. The definitions
 * are results.csv's (job/docs/experiments.md); {@code meanGapLastHalf} is the mean of {@code optimality_gap}
 * (F − F*) over the last half of the iterations (iterations 500–999 of 1000), NaN for a run that records none.
 *
 * @param settings the run's config.json
 * @param upTargetK the uplink's target k (the first round's; NaN for dense)
 * @param downTargetK the downlink's target k (NaN unless bidirectional)
 * @param achievedOverTargetUp mean over rounds of achieved k / target k of the uplink
 * @param upCoordinates coordinates sent up over the run, all workers ({@code up_nnz})
 * @param downCoordinates coordinates of the downlink's messages over the run, one copy ({@code down_nnz})
 */
record RunFigures(GridPoint point, JsonNode settings, double finalAccuracy, double bestAccuracy, long rounds,
    double wallSeconds, long upBytes, long downBytes, long downBytesDelivered, double downNnzRatio,
    double meanGapLastHalf, double lastRoundGap, double upTargetK, double downTargetK, double achievedOverTargetUp,
    long upCoordinates, long downCoordinates) {

  static RunFigures of(GridPoint point, RunMetrics run) {
    MetricTable it = run.iterations();
    MetricTable ep = run.epochs();
    double best = Double.NaN;
    for (double a : ep.column("test_accuracy")) {
      if (!Double.isNaN(a) && (Double.isNaN(best) || a > best)) {
        best = a;
      }
    }
    double[] downNnz = it.column("down_nnz");
    double[] aggNnz = it.column("agg_nnz");
    double ratioSum = 0;
    int ratioCount = 0;
    for (int i = 0; i < downNnz.length; i++) {
      if (aggNnz[i] > 0) {
        ratioSum += downNnz[i] / aggNnz[i];
        ratioCount++;
      }
    }
    double gap = Double.NaN;
    double lastGap = Double.NaN;
    if (it.hasValues("optimality_gap")) {
      double[] g = it.column("optimality_gap");
      lastGap = g.length == 0 ? Double.NaN : g[g.length - 1];
      double sum = 0;
      int count = 0;
      for (int i = g.length / 2; i < g.length; i++) {
        if (!Double.isNaN(g[i])) {
          sum += g[i];
          count++;
        }
      }
      gap = count == 0 ? Double.NaN : sum / count;
    }
    double[] target = it.column("up_target_k");
    double[] achieved = it.column("up_achieved_k");
    double quality = 0;
    int qualityCount = 0;
    for (int i = 0; i < target.length; i++) {
      if (target[i] > 0 && !Double.isNaN(achieved[i])) {
        quality += achieved[i] / target[i];
        qualityCount++;
      }
    }
    return new RunFigures(point, run.config(), ep.last("test_accuracy"), best, it.size(),
        sum(it.column("time_total_ms")) / 1000, (long) sum(it.column("up_bytes")), (long) sum(it.column("down_bytes")),
        (long) sum(it.column("down_bytes_delivered")), ratioCount == 0 ? Double.NaN : ratioSum / ratioCount, gap, lastGap,
        first(target), first(it.column("down_target_k")), qualityCount == 0 ? Double.NaN : quality / qualityCount,
        (long) sum(it.column("up_nnz")), (long) sum(it.column("down_nnz")));
  }

  /** A setting of the run's config.json as text ({@code fallback} when absent). */
  String setting(String key, String fallback) {
    JsonNode v = settings.get(key);
    return v == null || v.isNull() ? fallback : v.asText();
  }

  String mode() {
    return setting("mode", "bidirectional");
  }

  int workers() {
    return Integer.parseInt(setting("workers", "0"));
  }

  double lr() {
    return Double.parseDouble(setting("lr", "NaN"));
  }

  private static double first(double[] values) {
    for (double v : values) {
      if (!Double.isNaN(v)) {
        return v;
      }
    }
    return Double.NaN;
  }

  private static double sum(double[] values) {
    double s = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        s += v;
      }
    }
    return s;
  }
}
