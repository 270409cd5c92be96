package org.bitopk.job.problem.network;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.problem.WorkerPartitions;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;

/** An image classification problem: worker shards on executors, the test set and one network on the driver. */
public final class ImageProblem implements TrainingProblem<WorkerShard> {
  private final String name;
  private final LabeledImages test;
  /** Frees the shards' cache (if any) and the broadcasts behind them. */
  private final Runnable release;
  private final JavaRDD<WorkerShard> shards;
  private final int workers;
  private final int iterationsPerEpoch;
  private final NetworkObjectiveFactory factory;
  private final MultiLayerNetwork driverNetwork;

  /**
   * Shards cut on the driver and shipped to the executors as broadcasts: for data that exists only in the
   * driver's memory. Data read from files goes through {@link #readByExecutors}.
   *
   * @param nonIid use the paper's sorted-label shards instead of an equal random split
   */
  public ImageProblem(JavaSparkContext sc, String dataset, TrainTest data, ModelSpec model,
      int workers, boolean nonIid, int batchSize, long seed) {
    this(sc, dataset, data, model, workers, nonIid, batchSize, seed, Optional.empty());
  }

  /**
   * Shards that the executors read from the data set's files themselves ({@link ExecutorShards}): the driver's
   * link carries no training data. {@code data} is what the driver loaded from {@code dataset} and
   * {@code dataPath} (empty: the data set's default location): it is checked and its test set evaluated here.
   */
  public static ImageProblem readByExecutors(JavaSparkContext sc, String dataset, Optional<String> dataPath,
      TrainTest data, ModelSpec model, int workers, boolean nonIid, int batchSize, long seed) {
    return new ImageProblem(sc, dataset, data, model, workers, nonIid, batchSize, seed,
        Optional.of(dataPath.orElse("")));
  }

  private ImageProblem(JavaSparkContext sc, String dataset, TrainTest data, ModelSpec model,
      int workers, boolean nonIid, int batchSize, long seed, Optional<String> readFrom) {
    LabeledImages train = data.train();
    this.name = dataset + "/" + model.displayName();
    this.test = data.test();
    this.workers = workers;
    // The model is checked against the data before anything is cached on the executors.
    boolean augment = DatasetChoice.parse(dataset).augments();
    this.factory = new NetworkObjectiveFactory(model, train.channels(), train.height(), train.width(),
        train.numClasses(), batchSize, seed, augment);
    int[] sizes = ShardSplitter.shardSizes(train.count(), workers, nonIid);
    int rounds = Integer.MAX_VALUE;
    for (int size : sizes) {
      rounds = Math.min(rounds, size / batchSize);
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("--batch-size " + batchSize + " is larger than the smallest worker shard ("
          + train.count() / workers + " examples for " + workers + " workers)");
    }
    this.iterationsPerEpoch = rounds;
    String rddName = "worker shards (" + workers + " workers)";
    if (readFrom.isPresent()) {
      ExecutorShards read = ExecutorShards.distribute(sc, dataset, readFrom.get(), workers, nonIid, seed, rddName);
      this.shards = read.rdd();
      this.release = read::close;
    } else {
      List<WorkerShard> list = nonIid ? ShardSplitter.nonIid(train, workers, seed)
          : ShardSplitter.iid(train, workers, seed);
      WorkerPartitions<WorkerShard> broadcast = WorkerPartitions.distribute(sc, list, rddName);
      this.shards = broadcast.rdd();
      this.release = broadcast::close;
    }
    this.driverNetwork = factory.newNetwork();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int workers() {
    return workers;
  }

  @Override
  public JavaRDD<WorkerShard> shards() {
    return shards;
  }

  @Override
  public NetworkObjectiveFactory objectiveFactory() {
    return factory;
  }

  @Override
  public float[] initialParameters() {
    return factory.newNetwork().params().toFloatVector();
  }

  @Override
  public int iterationsPerEpoch() {
    return iterationsPerEpoch;
  }

  /** The driver's evaluation network carrying x. */
  public MultiLayerNetwork networkWith(float[] parameters) {
    driverNetwork.params().data().setData(parameters);
    return driverNetwork;
  }

  @Override
  public Evaluation evaluate(float[] parameters) {
    double[] sums = BatchEvaluation.sums(networkWith(parameters), test);
    return new Evaluation(sums[0] / test.count(), sums[1] / test.count());
  }

  @Override
  public String saveModel(float[] parameters, FileSystem fs, Path runDirectory) throws IOException {
    try (OutputStream out = fs.create(new Path(runDirectory, "model.zip"), true)) {
      ModelSerializer.writeModel(networkWith(parameters), out, false);
    }
    return "model.zip";
  }

  @Override
  public void close() {
    release.run();
  }
}
