package org.bitopk.job.problem.quadratic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
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
 * Zou's counterexample, in any {@link CounterexampleSetting}: d coordinates, one worker per centre a_i with
 * f_i(x) = ½‖x − a_i·1‖², full deterministic gradients, and x₀ generated from the seed or given (a file). The
 * paper's instance is d = 100, P = 3, a = (1, 5, 10), x₀ = 20·1 + N(0, 1). One epoch is one round (each round
 * uses all of the "data").
 */
public final class CounterexampleProblem implements TrainingProblem<QuadraticShard> {
  /** The paper's d. */
  public static final int DIMENSION = CounterexampleSetting.PAPER.dimension();
  /** The paper's centres. */
  public static final float[] CENTERS = CounterexampleSetting.PAPER.centres();

  private final CounterexampleSetting setting;
  private final WorkerPartitions<QuadraticShard> partitions;
  private final JavaRDD<QuadraticShard> shards;
  private final float[] start;
  private final String startSource;
  private final CounterexampleStart executorStart;

  /** The paper's instance, x₀ generated from {@code seed}. */
  public CounterexampleProblem(JavaSparkContext sc, long seed) {
    this(sc, CounterexampleSetting.PAPER, seed);
  }

  /** x₀ generated from {@code seed} ({@link CounterexampleSetting#initialPoint}). */
  public CounterexampleProblem(JavaSparkContext sc, CounterexampleSetting setting, long seed) {
    this(sc, setting, setting.initialPoint(seed), new CounterexampleStart.Generated(setting, seed),
        String.format(java.util.Locale.ROOT, "generated: java.util.Random(%d), x[j] = (float) (%s + %s * "
            + "nextGaussian()) for j = 0..d-1", seed, Double.toString(setting.start()),
            Double.toString(setting.noise())));
  }

  /**
   * @param start x₀, of length d
   * @param startFile where {@code start} was read from, for the record and for the executors to read it too
   */
  public CounterexampleProblem(JavaSparkContext sc, CounterexampleSetting setting, float[] start, String startFile) {
    this(sc, setting, ofDimension(setting, start), readableByExecutors(sc, startFile), "file " + startFile);
  }

  private CounterexampleProblem(JavaSparkContext sc, CounterexampleSetting setting, float[] start,
      CounterexampleStart executorStart, String startSource) {
    this.setting = setting;
    this.start = start;
    this.executorStart = executorStart;
    this.startSource = startSource;
    List<QuadraticShard> list = new ArrayList<>();
    for (int i = 0; i < setting.workers(); i++) {
      list.add(new QuadraticShard(i, setting.centre(i)));
    }
    this.partitions = WorkerPartitions.distribute(sc, list, "counterexample workers");
    this.shards = partitions.rdd();
  }

  private static float[] ofDimension(CounterexampleSetting setting, float[] start) {
    if (start.length != setting.dimension()) {
      throw new IllegalArgumentException("x0 has " + start.length + " entries, expected d = " + setting.dimension());
    }
    return start.clone();
  }

  /** The file as a fully qualified URI, which an executor can read if its file system serves it. */
  private static CounterexampleStart readableByExecutors(JavaSparkContext sc, String file) {
    try {
      Path path = new Path(file);
      return new CounterexampleStart.FromFile(path.getFileSystem(sc.hadoopConfiguration()).makeQualified(path)
          .toString());
    } catch (IOException | IllegalArgumentException e) {
      return new CounterexampleStart.Unknown();
    }
  }

  @Override
  public String name() {
    return "counterexample";
  }

  @Override
  public int workers() {
    return setting.workers();
  }

  @Override
  public JavaRDD<QuadraticShard> shards() {
    return shards;
  }

  @Override
  public ObjectiveFactory<QuadraticShard> objectiveFactory() {
    return new QuadraticObjectiveFactory(setting.dimension(), executorStart);
  }

  @Override
  public float[] initialParameters() {
    return start.clone();
  }

  @Override
  public int iterationsPerEpoch() {
    return 1;
  }

  public CounterexampleSetting setting() {
    return setting;
  }

  /** F(x) of the paper's instance, in double. */
  public static double objective(float[] x) {
    return CounterexampleSetting.PAPER.objective(x);
  }

  /** F* of the paper's instance: 6100/9. */
  public static double optimum() {
    return CounterexampleSetting.PAPER.optimum();
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("centres", setting.centres());
    d.put("x_star", setting.optimumCoordinate());
    d.put("f_star", setting.optimum());
    d.put("x0", startSource);
    d.put("x0_crc32c", crc32c(start));
    return d;
  }

  /** CRC32C of x as little-endian float32 bytes, in hex: identifies the very start a run took. */
  static String crc32c(float[] x) {
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(x.length * Float.BYTES)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(x);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes);
    return String.format(java.util.Locale.ROOT, "%08x", crc.getValue());
  }

  @Override
  public Evaluation evaluate(float[] parameters) {
    return new Evaluation(setting.objective(parameters), null);
  }

  @Override
  public OptionalDouble optimalityGap(float[] parameters) {
    return OptionalDouble.of(setting.objective(parameters) - setting.optimum());
  }

  @Override
  public String saveModel(float[] parameters, FileSystem fs, Path runDirectory) throws IOException {
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("problem", name());
    model.put("setting", setting.toString());
    model.put("dimension", setting.dimension());
    model.put("centres", setting.centres());
    model.put("parameters", parameters);
    model.put("objective", setting.objective(parameters));
    model.put("optimum", setting.optimum());
    model.put("x_star", setting.optimumCoordinate());
    return ModelJson.write(model, fs, runDirectory);
  }

  @Override
  public void close() {
    partitions.close();
  }
}
