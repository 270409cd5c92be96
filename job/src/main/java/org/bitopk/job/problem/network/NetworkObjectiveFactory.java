package org.bitopk.job.problem.network;

import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.WorkerObjective;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Serializable recipe for DL4J replicas: the model, the image shape and the minibatch settings. A model of
 * one's own travels inside it as compressed JSON ({@link ConfiguredModel}), a few kilobytes per task.
 */
public final class NetworkObjectiveFactory implements ObjectiveFactory<WorkerShard> {
  private static final long serialVersionUID = 1L;

  private final ModelSpec model;
  private final int channels;
  private final int height;
  private final int width;
  private final int classes;
  private final int batchSize;
  private final long seed;
  private final boolean augment;
  // Derived from the configuration; transient so that the task closure stays a few hundred bytes.
  private transient int dimension;
  private transient int[] statisticsIndices;

  /**
   * @throws IllegalArgumentException starting with {@code --model} when the model does not fit the images or
   *     classes, or DL4J cannot run it on them
   */
  public NetworkObjectiveFactory(ModelSpec model, int channels, int height, int width,
      int classes, int batchSize, long seed, boolean augment) {
    this.model = model;
    this.channels = channels;
    this.height = height;
    this.width = width;
    this.classes = classes;
    this.batchSize = batchSize;
    this.seed = seed;
    this.augment = augment;
    MultiLayerNetwork probe = newNetwork();
    checkRuns(probe);
    derive(probe);
  }

  /**
   * Runs a forward pass on two blank images: a model that passed the static checks can still fail inside
   * DL4J (a kernel larger than the image, a wrong preprocessor), and should fail here in one line rather than
   * on an executor.
   */
  private void checkRuns(MultiLayerNetwork network) {
    int length = channels * height * width;
    INDArray output;
    try {
      output = network.output(Nd4j.zeros(DataType.FLOAT, 2, length), false);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("--model " + model.displayName() + ": DL4J cannot run the network on "
          + channels + "x" + height + "x" + width + " images (rows of " + length + " values): "
          + ModelValidation.firstLine(ModelValidation.rootCause(e).getMessage()));
    }
    long[] shape = output.shape();
    if (shape.length != 2 || shape[0] != 2 || shape[1] != classes) {
      throw new IllegalArgumentException("--model " + model.displayName() + ": the network's output has shape "
          + java.util.Arrays.toString(shape) + " for 2 images, expected [2, " + classes + "] (one probability per "
          + "class)");
    }
  }

  private synchronized void derive(MultiLayerNetwork probe) {
    if (statisticsIndices == null) {
      dimension = Math.toIntExact(probe.numParams());
      statisticsIndices = NetworkObjective.statisticIndices(probe);
    }
  }

  /** A freshly initialised network; its initial parameters depend only on the seed. */
  public MultiLayerNetwork newNetwork() {
    return initialised(model.build(seed, channels, height, width, classes));
  }

  private static MultiLayerNetwork initialised(MultiLayerConfiguration configuration) {
    MultiLayerNetwork network = new MultiLayerNetwork(configuration);
    network.init();
    return network;
  }

  public ModelSpec model() {
    return model;
  }

  /**
   * The workers' replica: {@link #newNetwork()} with its 2-D convolutions as {@link DirectIm2colConvolutionLayer}
   * (the same numbers, computed faster); the driver's network, the one written out, stays DL4J's own.
   */
  @Override
  public WorkerObjective<WorkerShard> create() {
    MultiLayerNetwork network = initialised(
        DirectIm2colConvolutionLayer.substitute(model.build(seed, channels, height, width, classes)));
    derive(network);
    return new NetworkObjective(network, batchSize, seed, augment);
  }

  @Override
  public int dimension() {
    if (statisticsIndices == null) {
      derive(newNetwork());
    }
    return dimension;
  }

  @Override
  public int[] statisticsIndices() {
    if (statisticsIndices == null) {
      derive(newNetwork());
    }
    return statisticsIndices.clone();
  }

  @Override
  public int workerId(WorkerShard shard) {
    return shard.workerId();
  }
}
