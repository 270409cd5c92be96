package org.bitopk.lab.evaluation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.Selection;
import org.bitopk.job.capture.CapturedVector;

/**
 * Runs compressors on the captured vectors of one round and measures, per compressor, what the {@code
 * evaluate-compressors} command reports: target and achieved k, time per element, and the relative error
 * ‖c − sent‖/‖c‖ next to exact TopK's.
 *
 * <p>Every worker's vector gets its own compressor instance (as in training, where each worker has one), created
 * from the spec with the worker id as seed. Each instance is called {@code warmups} times on its vector before
 * {@code repeats} timed passes; a pass times all the round's vectors back to back on this thread, and the time per
 * element is the median pass divided by vectors·d. Achieved k and the error are those of the last pass: a stateful
 * compressor (adaptive SIDCo's stage controller, DGC's and Random-k's per-call seeds) has then seen its vector
 * {@code warmups + repeats} times, which is as close to its state in training as a single vector allows.
 */
final class CompressorEvaluation {

  /** One (round, compressor) line of the result. */
  record Row(int round, String compressor, int vectors, int dimension, int targetK, double achievedKMean,
      double nsPerElement, double relativeErrorMean, double topkRelativeErrorMean) {}

  private CompressorEvaluation() {}

  /**
   * @param vectors the round's vectors, all of one dimension d ≥ targetK
   * @param specs the compressors, in output order
   */
  static List<Row> round(int round, List<CapturedVector> vectors, List<CompressorSpec> specs, int targetK,
      int warmups, int repeats) {
    int d = vectors.get(0).dimension();
    for (CapturedVector v : vectors) {
      if (v.dimension() != d) {
        throw new IllegalArgumentException("--captures: round " + round + " mixes vectors of d = " + d + " and d = "
            + v.dimension() + " (worker " + v.worker() + ")");
      }
    }
    if (targetK > d) {
      throw new IllegalArgumentException("--density: k = " + targetK + " exceeds d = " + d + " of round " + round);
    }
    double topkError = 0;
    Compressor topk = CompressorSpec.parse("topk").create(0);
    for (CapturedVector v : vectors) {
      topkError += relativeError(v.valuesUnsafe(), topk.select(v.valuesUnsafe(), targetK).indices());
    }
    topkError /= vectors.size();

    List<Row> rows = new ArrayList<>();
    for (CompressorSpec spec : specs) {
      Compressor[] instances = new Compressor[vectors.size()];
      for (int i = 0; i < instances.length; i++) {
        instances[i] = spec.create(vectors.get(i).worker());
      }
      Selection[] last = new Selection[instances.length];
      for (int w = 0; w < warmups; w++) {
        pass(vectors, instances, targetK, last);
      }
      double[] nsPerElement = new double[repeats];
      for (int r = 0; r < repeats; r++) {
        nsPerElement[r] = pass(vectors, instances, targetK, last) / ((double) vectors.size() * d);
      }
      double achieved = 0;
      double error = 0;
      for (int i = 0; i < last.length; i++) {
        achieved += last[i].achievedK();
        error += relativeError(vectors.get(i).valuesUnsafe(), last[i].indices());
      }
      rows.add(new Row(round, spec.toString(), vectors.size(), d, targetK, achieved / last.length,
          median(nsPerElement), error / last.length, topkError));
    }
    return rows;
  }

  /** One timed pass over every vector; returns its nanoseconds and leaves each selection in {@code last}. */
  private static long pass(List<CapturedVector> vectors, Compressor[] instances, int targetK, Selection[] last) {
    long start = System.nanoTime();
    for (int i = 0; i < instances.length; i++) {
      last[i] = instances[i].select(vectors.get(i).valuesUnsafe(), targetK);
    }
    return System.nanoTime() - start;
  }

  /**
   * ‖c − sent‖/‖c‖ where sent keeps c at {@code selected} (strictly ascending) and is 0 elsewhere: the norm of the
   * unselected coordinates over the norm of all, in double; 0 for a zero vector.
   */
  static double relativeError(float[] c, int[] selected) {
    double all = 0;
    double left = 0;
    int s = 0;
    for (int j = 0; j < c.length; j++) {
      double v = c[j];
      all += v * v;
      if (s < selected.length && selected[s] == j) {
        s++;
      } else {
        left += v * v;
      }
    }
    return all == 0 ? 0 : Math.sqrt(left / all);
  }

  /**
   * The threshold that keeps the k largest magnitudes of {@code c} (ties aside): just below its k-th largest
   * |value|, since the threshold compressor keeps {@code |x| > tau}.
   */
  static float thresholdForK(float[] c, int k) {
    float[] magnitudes = new float[c.length];
    for (int j = 0; j < c.length; j++) {
      magnitudes[j] = Math.abs(c[j]);
    }
    Arrays.sort(magnitudes);
    float kth = magnitudes[c.length - k];
    return kth > 0 ? Math.nextDown(kth) : 0f;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
