package org.bitopk.job.problem;

import org.bitopk.datasets.WorkerShard;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/** Serializable recipe for DL4J replicas: the architecture, the image shape and the minibatch settings. */
public final class NetworkObjectiveFactory implements ObjectiveFactory<WorkerShard> {
  private static final long serialVersionUID = 1L;

  private final ModelArchitecture architecture;
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

  public NetworkObjectiveFactory(ModelArchitecture architecture, int channels, int height, int width,
      int classes, int batchSize, long seed, boolean augment) {
    this.architecture = architecture;
    this.channels = channels;
    this.height = height;
    this.width = width;
    this.classes = classes;
    this.batchSize = batchSize;
    this.seed = seed;
    this.augment = augment;
    derive(newNetwork());
  }

  private synchronized void derive(MultiLayerNetwork probe) {
    if (statisticsIndices == null) {
      dimension = Math.toIntExact(probe.numParams());
      statisticsIndices = NetworkObjective.statisticIndices(probe);
    }
  }

  /** A freshly initialised network; its initial parameters depend only on the seed. */
  public MultiLayerNetwork newNetwork() {
    MultiLayerNetwork network = new MultiLayerNetwork(architecture.build(seed, channels, height, width, classes));
    network.init();
    return network;
  }

  public ModelArchitecture architecture() {
    return architecture;
  }

  @Override
  public WorkerObjective<WorkerShard> create() {
    MultiLayerNetwork network = newNetwork();
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
