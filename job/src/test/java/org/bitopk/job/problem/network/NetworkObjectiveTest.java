package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.Minibatch;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.problem.WorkerObjective;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;

class NetworkObjectiveTest {
  @ParameterizedTest(name = "{0}: {1} trainable + {2} running statistics")
  @CsvSource({
      "MLP_SMALL, 50890, 0, 1, 28, 28",
      "MLP, 242762, 0, 1, 28, 28",
      "CNN, 1199882, 0, 1, 28, 28",
      "CNN_BN, 29034, 96, 1, 28, 28",
      "VGG19_BN, 20040522, 11008, 3, 32, 32"})
  void parameterCountsMatchThePapersModels(ModelArchitecture architecture, int trainable, int statistics,
      int channels, int height, int width) {
    NetworkObjectiveFactory factory = new NetworkObjectiveFactory(architecture, channels, height, width, 10, 4, 1,
        false);
    assertEquals(trainable, architecture.referenceTrainableParameters());
    assertEquals(statistics, factory.statisticsIndices().length);
    assertEquals(trainable + statistics, factory.dimension());
  }

  /**
   * One step of the job's SGD (x − lr·g for weights, x − s for running statistics) must equal DL4J's own
   * {@code fit} with an SGD updater on the same minibatch: checks the division by the batch size that DL4J
   * leaves to its updater, and the batch-norm statistics semantics.
   */
  @ParameterizedTest
  @CsvSource({"MLP_SMALL, 16", "MLP, 8", "CNN_BN, 8"})
  void oneStepEqualsDl4jFitWithSgd(ModelArchitecture architecture, int batchSize) {
    TrainTest data = Datasets.load("synthetic:n=64,test=8", null, new Configuration());
    LabeledImages train = data.train();
    List<WorkerShard> shards = ShardSplitter.iid(train, 1, 3);
    WorkerShard shard = shards.get(0);
    NetworkObjectiveFactory factory = new NetworkObjectiveFactory(architecture, train.channels(), train.height(),
        train.width(), train.numClasses(), batchSize, 5, false);
    WorkerObjective<WorkerShard> objective = factory.create();
    float[] x = factory.newNetwork().params().toFloatVector();
    objective.load(x);
    float[] g = new float[x.length];
    double loss = objective.gradient(shard, 0, 1, g);
    assertTrue(Double.isFinite(loss) && loss > 0, "loss " + loss);

    double lr = 0.05;
    MultiLayerNetwork reference = new MultiLayerNetwork(architecture.build(5, train.channels(), train.height(),
        train.width(), train.numClasses(), new Sgd(lr)));
    reference.init();
    reference.params().data().setData(x);
    Minibatch batch = shard.minibatch(0, 1, batchSize, 5, false);
    float[] oneHot = new float[batchSize * train.numClasses()];
    for (int i = 0; i < batchSize; i++) {
      oneHot[i * train.numClasses() + batch.labels()[i]] = 1f;
    }
    reference.fit(Nd4j.createFromArray(batch.features()).reshape(batchSize, train.featureLength()),
        Nd4j.createFromArray(oneHot).reshape(batchSize, train.numClasses()));
    float[] expected = reference.params().toFloatVector();

    boolean[] statistic = new boolean[x.length];
    for (int j : factory.statisticsIndices()) {
      statistic[j] = true;
    }
    double maxError = 0;
    double maxStep = 0;
    for (int j = 0; j < x.length; j++) {
      double ours = statistic[j] ? (double) x[j] - g[j] : (double) x[j] - lr * g[j];
      maxError = Math.max(maxError, Math.abs(ours - expected[j]));
      maxStep = Math.max(maxStep, Math.abs(expected[j] - x[j]));
    }
    assertTrue(maxStep > 1e-4, "the step must move the parameters, max step " + maxStep);
    assertTrue(maxError < 1e-5 + 1e-3 * maxStep, "max deviation from DL4J's fit: " + maxError
        + " (max step " + maxStep + ")");
  }

  @ParameterizedTest
  @CsvSource({"MLP_SMALL", "CNN_BN"})
  void sparseUpdatesReachTheNetworkParameters(ModelArchitecture architecture) {
    NetworkObjectiveFactory factory = new NetworkObjectiveFactory(architecture, 1, 28, 28, 10, 4, 1, false);
    WorkerObjective<WorkerShard> objective = factory.create();
    float[] x = factory.newNetwork().params().toFloatVector();
    objective.load(x);
    assertTrue(java.util.Arrays.equals(x, objective.modelParameters()));
    int[] changed = {0, 5, x.length - 1};
    for (int j : changed) {
      x[j] += 0.25f;
    }
    objective.update(x, changed);
    assertTrue(java.util.Arrays.equals(x, objective.modelParameters()));
  }
}
