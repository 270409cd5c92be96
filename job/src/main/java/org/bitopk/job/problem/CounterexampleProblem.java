package org.bitopk.job.problem;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Zou's counterexample: d = 100, P = 3, f_i(x) = ½‖x − a_i·1‖² with a = (1, 5, 10), x₀ = 20·1 + N(0, 1).
 * F* = ½·d·mean_i (a_i − ā)² at x* = ā·1. One epoch is one round (each round uses all of the "data").
 */
public final class CounterexampleProblem implements TrainingProblem<QuadraticShard> {
  public static final int DIMENSION = 100;
  public static final float[] CENTERS = {1f, 5f, 10f};

  private final WorkerPartitions<QuadraticShard> partitions;
  private final JavaRDD<QuadraticShard> shards;
  private final long seed;

  public CounterexampleProblem(JavaSparkContext sc, long seed) {
    this.seed = seed;
    List<QuadraticShard> list = new ArrayList<>();
    for (int i = 0; i < CENTERS.length; i++) {
      list.add(new QuadraticShard(i, CENTERS[i]));
    }
    this.partitions = WorkerPartitions.distribute(sc, list, "counterexample workers");
    this.shards = partitions.rdd();
  }

  @Override
  public String name() {
    return "counterexample";
  }

  @Override
  public int workers() {
    return CENTERS.length;
  }

  @Override
  public JavaRDD<QuadraticShard> shards() {
    return shards;
  }

  @Override
  public ObjectiveFactory<QuadraticShard> objectiveFactory() {
    return new QuadraticObjectiveFactory(DIMENSION);
  }

  @Override
  public float[] initialParameters() {
    Random random = new Random(seed);
    float[] x = new float[DIMENSION];
    for (int j = 0; j < x.length; j++) {
      x[j] = (float) (20.0 + random.nextGaussian());
    }
    return x;
  }

  @Override
  public int iterationsPerEpoch() {
    return 1;
  }

  /** F(x) = mean_i f_i(x), in double. */
  public static double objective(float[] x) {
    double total = 0;
    for (float a : CENTERS) {
      for (float v : x) {
        double diff = (double) v - a;
        total += 0.5 * diff * diff;
      }
    }
    return total / CENTERS.length;
  }

  /** F* = F(ā·1) = ½·d·mean_i (a_i − ā)²; 6100/9 for the paper's setting. */
  public static double optimum() {
    double mean = 0;
    for (float a : CENTERS) {
      mean += a;
    }
    mean /= CENTERS.length;
    double spread = 0;
    for (float a : CENTERS) {
      spread += (a - mean) * (a - mean);
    }
    return 0.5 * DIMENSION * spread / CENTERS.length;
  }

  @Override
  public Evaluation evaluate(float[] parameters) {
    return new Evaluation(objective(parameters), null);
  }

  @Override
  public Double optimalityGap(float[] parameters) {
    return objective(parameters) - optimum();
  }

  @Override
  public String saveModel(float[] parameters, FileSystem fs, Path runDirectory) throws IOException {
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("problem", name());
    model.put("dimension", DIMENSION);
    model.put("centers", CENTERS);
    model.put("parameters", parameters);
    model.put("objective", objective(parameters));
    model.put("optimum", optimum());
    try (OutputStream out = fs.create(new Path(runDirectory, "model.json"), true)) {
      new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out, model);
    }
    return "model.json";
  }

  @Override
  public void close() {
    partitions.close();
  }
}
