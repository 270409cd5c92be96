package org.bitopk.job.problem.network;

import org.bitopk.datasets.LabeledImages;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Test loss and correct predictions of a network over a set of examples, in forward passes of
 * {@value #BATCH} rows. One function for the driver (data set files) and the executors (tables): the same
 * examples in the same order give the same sums, bit for bit.
 */
final class BatchEvaluation {
  static final int BATCH = 1000;

  private BatchEvaluation() {}

  /** {sum of −log p(label), number of correct argmax predictions} over {@code data}. */
  static double[] sums(MultiLayerNetwork network, LabeledImages data) {
    int count = data.count();
    int length = data.featureLength();
    int classes = data.numClasses();
    float[] features = data.features();
    int[] labels = data.labels();
    double lossSum = 0;
    long correct = 0;
    for (int start = 0; start < count; start += BATCH) {
      int n = Math.min(BATCH, count - start);
      float[] chunk = new float[n * length];
      System.arraycopy(features, start * length, chunk, 0, chunk.length);
      INDArray output = network.output(Nd4j.createFromArray(chunk).reshape(n, length), false);
      float[][] probabilities = output.toFloatMatrix();
      for (int i = 0; i < n; i++) {
        float[] p = probabilities[i];
        int label = labels[start + i];
        lossSum -= Math.log(Math.max(p[label], 1e-12f));
        int best = 0;
        for (int c = 1; c < classes; c++) {
          if (p[c] > p[best]) {
            best = c;
          }
        }
        if (best == label) {
          correct++;
        }
      }
    }
    return new double[] {lossSum, correct};
  }
}
