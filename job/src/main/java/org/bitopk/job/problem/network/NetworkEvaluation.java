package org.bitopk.job.problem.network;

import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.problem.Evaluation;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * Test loss and accuracy of any DL4J network over labelled images, by the same function the job's own evaluation
 * uses ({@code BatchEvaluation}): comparisons with networks trained elsewhere (DL4J's own training masters, a
 * plain {@code fit}) then differ in the training only, never in how accuracy is counted.
 */
public final class NetworkEvaluation {
  private NetworkEvaluation() {}

  /** Mean −log p(label) and the fraction of correct argmax predictions over {@code data}. */
  public static Evaluation of(MultiLayerNetwork network, LabeledImages data) {
    if (data.count() == 0) {
      throw new IllegalArgumentException("no examples to evaluate on");
    }
    double[] sums = BatchEvaluation.sums(network, data);
    return new Evaluation(sums[0] / data.count(), sums[1] / data.count());
  }
}
