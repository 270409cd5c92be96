package org.bitopk.job.problem.network;

import java.util.Arrays;
import org.bitopk.datasets.Minibatch;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.problem.WorkerObjective;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A DL4J network used only to compute gradients: {@code computeGradientAndScore} on the flattened gradient
 * view. Its flattened parameter buffer mirrors the caller's canonical float[]; only changed entries are
 * copied in.
 */
final class NetworkObjective implements WorkerObjective<WorkerShard> {
  private final MultiLayerNetwork network;
  private final INDArray parameterView;
  private final boolean[] statistic;
  private final int batchSize;
  private final long seed;
  private final boolean augment;
  /** Whether parameters were loaded: until then the network holds what its initialisation drew from the seed. */
  private boolean loaded;

  NetworkObjective(MultiLayerNetwork network, int batchSize, long seed, boolean augment) {
    this.network = network;
    this.parameterView = network.params();
    this.statistic = statisticMask(network);
    this.batchSize = batchSize;
    this.seed = seed;
    this.augment = augment;
  }

  @Override
  public int dimension() {
    return statistic.length;
  }

  /** The network was initialised from the run's seed when it was created ({@link NetworkObjectiveFactory#create}). */
  @Override
  public java.util.Optional<float[]> initialParameters() {
    return loaded ? java.util.Optional.empty() : java.util.Optional.of(parameterView.toFloatVector());
  }

  @Override
  public void load(float[] parameters) {
    loaded = true;
    // One bulk copy into native memory; DataBuffer#setData copies element by element through the indexer.
    parameterView.data().asNioFloat().put(parameters);
  }

  @Override
  public void update(float[] parameters, int[] indices) {
    DataBuffer buffer = parameterView.data();
    for (int j : indices) {
      buffer.put(j, parameters[j]);
    }
  }

  @Override
  public double gradient(WorkerShard shard, int epoch, int batchIndex, float[] gradientOut) {
    Minibatch batch = shard.minibatch(epoch, batchIndex, batchSize, seed, augment);
    int size = batch.size();
    int classes = shard.data().numClasses();
    float[] oneHot = new float[size * classes];
    int[] labels = batch.labels();
    for (int i = 0; i < size; i++) {
      oneHot[i * classes + labels[i]] = 1f;
    }
    network.setInput(matrix(batch.features(), size));
    network.setLabels(matrix(oneHot, size));
    network.computeGradientAndScore();
    double loss = network.score();
    // DL4J leaves the division by the minibatch size to its updater, except for running statistics whose
    // "gradient" is already the step x -> x - s (see BaseMultiLayerUpdater#divideByMinibatch).
    network.getFlattenedGradients().data().asNioFloat().get(gradientOut);
    float scale = size;
    for (int j = 0; j < gradientOut.length; j++) {
      if (!statistic[j]) {
        gradientOut[j] /= scale;
      }
    }
    network.clear();
    return loss;
  }

  /**
   * A rows x (values / rows) float matrix holding {@code values}, filled with one bulk copy: the minibatch is
   * copied for every worker step, and {@code Nd4j.createFromArray} copies element by element.
   */
  private static INDArray matrix(float[] values, int rows) {
    INDArray out = Nd4j.createUninitialized(DataType.FLOAT, rows, values.length / rows);
    out.data().asNioFloat().put(values);
    return out;
  }

  @Override
  public float[] modelParameters() {
    return network.params().toFloatVector();
  }

  /** Network's params() must be the live flattened view this objective writes into. */
  MultiLayerNetwork network() {
    return network;
  }

  static boolean[] statisticMask(MultiLayerNetwork network) {
    boolean[] mask = new boolean[Math.toIntExact(network.numParams())];
    int offset = 0;
    for (Layer layer : network.getLayers()) {
      for (var entry : layer.paramTable(false).entrySet()) {
        int length = Math.toIntExact(entry.getValue().length());
        if (!layer.updaterDivideByMinibatch(entry.getKey())) {
          Arrays.fill(mask, offset, offset + length, true);
        }
        offset += length;
      }
    }
    if (offset != mask.length) {
      throw new IllegalStateException("parameter tables cover " + offset + " of " + mask.length + " parameters");
    }
    return mask;
  }

  static int[] statisticIndices(MultiLayerNetwork network) {
    boolean[] mask = statisticMask(network);
    int count = 0;
    for (boolean b : mask) {
      if (b) {
        count++;
      }
    }
    int[] out = new int[count];
    for (int j = 0, n = 0; j < mask.length; j++) {
      if (mask[j]) {
        out[n++] = j;
      }
    }
    return out;
  }
}
