package org.bitopk.job.problem.synthetic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.problem.Evaluation;
import org.bitopk.job.problem.ModelJson;
import org.bitopk.job.problem.ObjectiveFactory;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.problem.WorkerPartitions;

/**
 * A benchmark problem, not a training problem: P workers whose gradients cost one pass over d to make and whose TopK
 * supports overlap as configured ({@link SyntheticGradients}), so that a round's time is the system's (uplinks,
 * driver, broadcast), whatever d. Worker i's objective in round t is the linear f_{i,t}(x) = ⟨g_{i,t}, x⟩; nothing
 * converges. x₀ = 0, one round per epoch, and the evaluation is ½‖x‖² (how far the updates have moved x).
 */
public final class SyntheticGradientProblem implements TrainingProblem<SyntheticGradientShard> {
  private final SyntheticGradientSetting setting;
  private final SyntheticGradients gradients;
  private final WorkerPartitions<SyntheticGradientShard> partitions;

  /**
   * @param workers P
   * @param k the run's uplink k: each worker's large entries per round
   */
  public SyntheticGradientProblem(JavaSparkContext sc, SyntheticGradientSetting setting, int workers, int k,
      long seed) {
    this.setting = setting;
    this.gradients = new SyntheticGradients(setting, workers, k, seed);
    List<SyntheticGradientShard> shards = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      shards.add(new SyntheticGradientShard(i));
    }
    this.partitions = WorkerPartitions.distribute(sc, shards, "synthetic-gradient workers");
  }

  @Override
  public String name() {
    return SyntheticGradientSetting.NAME;
  }

  @Override
  public int workers() {
    return partitions.rdd().getNumPartitions();
  }

  @Override
  public JavaRDD<SyntheticGradientShard> shards() {
    return partitions.rdd();
  }

  @Override
  public ObjectiveFactory<SyntheticGradientShard> objectiveFactory() {
    return new SyntheticGradientObjectiveFactory(gradients, iterationsPerEpoch());
  }

  @Override
  public float[] initialParameters() {
    return new float[setting.dimension()];
  }

  @Override
  public int iterationsPerEpoch() {
    return 1;
  }

  @Override
  public Evaluation evaluate(float[] parameters) {
    return new Evaluation(halfSquaredNorm(parameters), null);
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("benchmark_problem", setting.toString());
    d.put("large_entries_per_worker", gradients.k());
    d.put("shared_entries", gradients.sharedCount());
    d.put("union_per_round", gradients.unionSize());
    return d;
  }

  /** model.json: the setting and ½‖x‖², not the d parameters (x is a by-product of a benchmark). */
  @Override
  public String saveModel(float[] parameters, FileSystem fs, Path runDirectory) throws IOException {
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("problem", name());
    model.put("setting", setting.toString());
    model.put("dimension", setting.dimension());
    model.put("half_squared_norm", halfSquaredNorm(parameters));
    return ModelJson.write(model, fs, runDirectory);
  }

  private static double halfSquaredNorm(float[] x) {
    double sum = 0;
    for (float v : x) {
      sum += (double) v * v;
    }
    return 0.5 * sum;
  }

  @Override
  public void close() {
    partitions.close();
  }
}
