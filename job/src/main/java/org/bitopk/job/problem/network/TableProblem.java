package org.bitopk.job.problem.network;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.datasets.FeatureNormalization;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.table.InputNames;
import org.bitopk.job.table.TableData;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;

/**
 * Image classification on a table: the worker shards and the test set were built and cached by the
 * executors ({@link TableData}); the test set is evaluated where it is cached, each evaluation broadcasting
 * x once and collecting one (loss sum, correct) pair per test block, summed on the driver in block order.
 */
public final class TableProblem implements TrainingProblem<WorkerShard> {
  private final JavaSparkContext sc;
  private final TableData data;
  private final String name;
  private final NetworkObjectiveFactory factory;
  private final int iterationsPerEpoch;
  private final long testCount;
  private MultiLayerNetwork driverNetwork;

  private TableProblem(JavaSparkContext sc, TableData data, NetworkObjectiveFactory factory, int rounds,
      String name) {
    this.sc = sc;
    this.data = data;
    this.factory = factory;
    this.iterationsPerEpoch = rounds;
    this.name = name;
    this.testCount = data.testRows();
  }

  /**
   * Takes ownership of {@code data} (closed with the problem, or at once if the model does not fit it).
   *
   * @throws IllegalArgumentException when the model does not fit the input shape or a shard is smaller than
   *     a batch, naming the setting
   */
  public static TableProblem create(JavaSparkContext sc, TableData data, ModelSpec model,
      int batchSize, long seed, InputNames names) {
    try {
      int smallest = Integer.MAX_VALUE;
      for (int size : data.shardSizes()) {
        smallest = Math.min(smallest, size);
      }
      int rounds = smallest / batchSize;
      if (rounds < 1) {
        throw new IllegalArgumentException(names.batchSize() + " " + batchSize + " is larger than the smallest "
            + "worker shard (" + smallest + " examples for " + data.workers() + " workers)");
      }
      NetworkObjectiveFactory factory;
      try {
        factory = new NetworkObjectiveFactory(model, data.channels(), data.height(), data.width(),
            data.labels().numClasses(), batchSize, seed, false);
      } catch (RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (message.startsWith(names.model())) {
          throw e;
        }
        throw new IllegalArgumentException(names.model() + " " + model.displayName() + " does not fit input "
            + "shape " + shape(data) + " (" + message.lines().findFirst().orElse(message) + "); give the image "
            + "shape with " + names.inputShape(), e);
      }
      return new TableProblem(sc, data, factory, rounds, "table/" + model.displayName());
    } catch (RuntimeException e) {
      data.close();
      throw e;
    }
  }

  private static String shape(TableData data) {
    return data.channels() + "x" + data.height() + "x" + data.width();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int workers() {
    return data.workers();
  }

  @Override
  public JavaRDD<WorkerShard> shards() {
    return data.shards();
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

  public TableData data() {
    return data;
  }

  @Override
  public Evaluation evaluate(float[] parameters) {
    Broadcast<float[]> x = sc.broadcast(parameters);
    try {
      List<double[]> sums = data.test().mapPartitions(new EvaluateBlocks(factory, x)).collect();
      double loss = 0;
      double correct = 0;
      for (double[] s : sums) {
        loss += s[0];
        correct += s[1];
      }
      return new Evaluation(loss / testCount, correct / testCount);
    } finally {
      x.destroy();
    }
  }

  @Override
  public Map<String, Object> describe() {
    FeatureNormalization n = data.normalization();
    Map<String, Object> normalization = new LinkedHashMap<>();
    normalization.put("feature_scale", n.scale());
    normalization.put("mean", n.mean());
    normalization.put("std", n.std());
    Map<String, Object> table = new LinkedHashMap<>();
    table.put("rows", data.rows());
    table.put("test_rows", data.testRows());
    table.put("dropped_rows", data.droppedRows());
    table.put("shard_size_min", java.util.Arrays.stream(data.shardSizes()).min().orElse(0));
    table.put("shard_size_max", java.util.Arrays.stream(data.shardSizes()).max().orElse(0));
    table.put("features", data.features());
    table.put("input_shape", shape(data));
    table.put("classes", data.labels().numClasses());
    table.put("class_names", data.labels().classNames());
    table.put("normalization", normalization);
    return Map.of("table", table);
  }

  @Override
  public String saveModel(float[] parameters, FileSystem fs, Path runDirectory) throws IOException {
    if (driverNetwork == null) {
      driverNetwork = factory.newNetwork();
    }
    driverNetwork.params().data().setData(parameters);
    try (OutputStream out = fs.create(new Path(runDirectory, "model.zip"), true)) {
      ModelSerializer.writeModel(driverNetwork, out, false);
    }
    return "model.zip";
  }

  @Override
  public void close() {
    data.close();
  }

  /** On an executor: one network carrying x, the sums over every test block of the partition. */
  private static final class EvaluateBlocks implements FlatMapFunction<Iterator<LabeledImages>, double[]> {
    private static final long serialVersionUID = 1L;
    private final NetworkObjectiveFactory factory;
    private final Broadcast<float[]> parameters;

    EvaluateBlocks(NetworkObjectiveFactory factory, Broadcast<float[]> parameters) {
      this.factory = factory;
      this.parameters = parameters;
    }

    @Override
    public Iterator<double[]> call(Iterator<LabeledImages> blocks) {
      if (!blocks.hasNext()) {
        return java.util.Collections.emptyIterator();
      }
      MultiLayerNetwork network = factory.newNetwork();
      network.params().data().setData(parameters.value());
      double loss = 0;
      double correct = 0;
      while (blocks.hasNext()) {
        double[] s = BatchEvaluation.sums(network, blocks.next());
        loss += s[0];
        correct += s[1];
      }
      return List.of(new double[] {loss, correct}).iterator();
    }
  }
}
