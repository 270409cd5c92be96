package org.bitopk.lab.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.NetworkEvaluation;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;

/**
 * The DL4J side of the comparison: bitopk's MLP configuration with DL4J's plain SGD instead of the job's NoOp
 * updater (the seed, hence the initial parameters, are the job's), the training set as shuffled minibatches,
 * and evaluation by the job's own function.
 */
final class Dl4jSetup {
  static final ModelArchitecture MODEL = ModelArchitecture.MLP;

  private Dl4jSetup() {}

  /** bitopk's {@code --model mlp} network for these images, initialised from {@code seed}, SGD at {@code lr}. */
  static MultiLayerNetwork network(LabeledImages train, long seed, double lr) {
    MultiLayerNetwork network = new MultiLayerNetwork(MODEL.build(seed, train.channels(), train.height(),
        train.width(), train.numClasses(), new Sgd(lr)));
    network.init();
    return network;
  }

  /** The parameters bitopk's run starts from (the job's NoOp configuration, same seed). */
  static float[] bitopkInitialParameters(LabeledImages train, long seed) {
    MultiLayerNetwork network = new MultiLayerNetwork(MODEL.build(seed, train.channels(), train.height(),
        train.width(), train.numClasses()));
    network.init();
    return network.params().toFloatVector();
  }

  /**
   * Epoch {@code epoch}'s minibatches of {@code batch} examples in an order drawn from {@code seed} and the epoch;
   * the last, incomplete minibatch is left out (as the job's workers do).
   */
  static List<DataSet> minibatches(LabeledImages train, int batch, long seed, int epoch) {
    int n = train.count();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Random random = new Random(seed * 31 + epoch);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int length = train.featureLength();
    int classes = train.numClasses();
    float[] features = train.features();
    int[] labels = train.labels();
    List<DataSet> batches = new ArrayList<>(n / batch);
    for (int start = 0; start + batch <= n; start += batch) {
      float[] x = new float[batch * length];
      float[] y = new float[batch * classes];
      for (int r = 0; r < batch; r++) {
        int example = order[start + r];
        System.arraycopy(features, example * length, x, r * length, length);
        y[r * classes + labels[example]] = 1f;
      }
      batches.add(new DataSet(Nd4j.createFromArray(x).reshape(batch, length),
          Nd4j.createFromArray(y).reshape(batch, classes)));
    }
    return batches;
  }

  static Evaluation evaluate(MultiLayerNetwork network, LabeledImages test) {
    return NetworkEvaluation.of(network, test);
  }
}
