package org.bitopk.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.StringIndexer;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.bitopk.job.LocalSpark;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The Estimator as Spark ML users meet it: a CSV of 8×8 images with class names, StringIndexer and
 * VectorAssembler in front of it in a Pipeline, MulticlassClassificationEvaluator behind it, persistence of
 * the fitted and the unfitted pipeline. Predictions are checked against DL4J run by hand on the run's own
 * model.zip and recorded normalisation.
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BitopkClassifierTest {
  @org.junit.jupiter.api.extension.RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  private static final String[] KINDS = {"dress", "ankle boot", "coat", "bag"};
  private static final int SIDE = 8;

  private Path tmp;
  private JavaSparkContext sc;
  private SparkSession spark;
  private Dataset<Row> train;
  private Dataset<Row> test;
  private PipelineModel fitted;
  private Dataset<Row> predictions;
  private Path run;

  @BeforeAll
  void fitAPipeline(@TempDir Path dir) throws IOException {
    tmp = dir;
    sc = SPARK.context();
    spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
    Random random = new Random(8);
    int[][] prototypes = new int[KINDS.length][SIDE * SIDE];
    for (int[] p : prototypes) {
      for (int j = 0; j < p.length; j++) {
        p[j] = random.nextInt(256);
      }
    }
    train = csv("train.csv", 480, prototypes, random);
    test = csv("test.csv", 160, prototypes, random);
    run = tmp.resolve("run");
    String[] pixels = IntStream.range(0, SIDE * SIDE).mapToObj(j -> "px" + j).toArray(String[]::new);
    Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
        new StringIndexer().setInputCol("kind").setOutputCol("label"),
        new VectorAssembler().setInputCols(pixels).setOutputCol("features"),
        new BitopkClassifier().setWorkers(2).setBatchSize(16).setEpochs(3).setModel("mlp-small").setLr(0.05)
            .setDensityUp(0.1).setDensityDown(0.1).setFeatureScale(255).setInputShape("1x8x8").setSeed(5)
            .setProbabilityCol("p").setOutputDir(run.toString())});
    fitted = pipeline.fit(train);
    predictions = fitted.transform(test).cache();
    pipeline.write().save(tmp.resolve("unfitted").toString());
  }


  /** A header kind,px0..px63 and one line per image: a class prototype plus noise, clipped to 0..255. */
  private Dataset<Row> csv(String name, int rows, int[][] prototypes, Random random) throws IOException {
    Path file = tmp.resolve(name);
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      w.write("kind," + String.join(",", IntStream.range(0, SIDE * SIDE).mapToObj(j -> "px" + j).toList()) + "\n");
      for (int i = 0; i < rows; i++) {
        int k = i % KINDS.length;
        StringBuilder line = new StringBuilder(KINDS[k]);
        for (int v : prototypes[k]) {
          line.append(',').append(Math.max(0, Math.min(255, v + (int) (50 * random.nextGaussian()))));
        }
        w.write(line.append('\n').toString());
      }
    }
    return spark.read().option("header", "true").option("inferSchema", "true").csv(file.toString());
  }

  @Test
  void theEvaluatorScoresThePredictionsAndTheyAreRight() {
    double accuracy = new MulticlassClassificationEvaluator().setLabelCol("label").setPredictionCol("prediction")
        .setMetricName("accuracy").evaluate(predictions);
    List<Row> rows = predictions.select("label", "prediction").collectAsList();
    long correct = rows.stream().filter(r -> r.getDouble(0) == r.getDouble(1)).count();
    assertEquals((double) correct / rows.size(), accuracy, 1e-12, "second formula");
    assertTrue(accuracy > 0.9, "accuracy " + accuracy);
    assertEquals(160, rows.size());
  }

  @Test
  void predictionsEqualDl4jOnTheRunsModelAndNormalisation() throws IOException {
    JsonNode table = new ObjectMapper().readTree(run.resolve("config.json").toFile()).get("resolved").get("table");
    float scale = (float) table.get("normalization").get("feature_scale").asDouble();
    float mean = (float) table.get("normalization").get("mean").get(0).asDouble();
    float std = (float) table.get("normalization").get("std").get(0).asDouble();
    assertEquals(255f, scale);
    MultiLayerNetwork network = ModelSerializer.restoreMultiLayerNetwork(run.resolve("model.zip").toFile(), false);
    for (Row row : predictions.select("features", "p", "rawPrediction", "prediction").limit(40).collectAsList()) {
      double[] x = ((Vector) row.get(0)).toArray();
      float[] input = new float[x.length];
      for (int j = 0; j < x.length; j++) {
        input[j] = ((float) x[j] / scale - mean) / std;
      }
      float[] expected = network.output(Nd4j.createFromArray(input).reshape(1, x.length), false).toFloatVector();
      double[] p = ((Vector) row.get(1)).toArray();
      double[] raw = ((Vector) row.get(2)).toArray();
      int best = 0;
      for (int c = 0; c < expected.length; c++) {
        assertEquals(expected[c], p[c], 1e-5);
        assertEquals(Math.log(p[c]), raw[c], 1e-9);
        best = expected[c] > expected[best] ? c : best;
      }
      assertEquals(best, row.getDouble(3), 0.0);
    }
  }

  @Test
  void theRunDirectoryHoldsTheTrainingMetrics() throws IOException {
    JsonNode config = new ObjectMapper().readTree(run.resolve("config.json").toFile());
    assertEquals("dataframe", config.get("data-format").asText());
    assertEquals(4, config.get("resolved").get("table").get("classes").asInt(), "StringIndexer's metadata");
    long perEpoch = config.get("resolved").get("iterations_per_epoch").asLong();
    // 480 rows, 48 held out (testFraction 0.1), 2 workers of 216, batches of 16
    assertEquals(216 / 16, perEpoch);
    assertEquals(3 * perEpoch, Files.readAllLines(run.resolve("metrics/iterations.jsonl")).size());
    assertEquals(3, Files.readAllLines(run.resolve("metrics/epochs.jsonl")).size());
    assertTrue(Files.exists(run.resolve("_SUCCESS")));
    BitopkClassificationModel model = (BitopkClassificationModel) fitted.stages()[2];
    assertEquals(run.toString(), Path.of(java.net.URI.create(model.runDirectory())).toString());
    assertEquals(4, model.numClasses());
    assertArrayEquals(new int[] {1, 8, 8}, model.inputShape());
    assertEquals("p", model.getProbabilityCol(), "output columns copied from the estimator");
  }

  @Test
  void savedAndLoadedModelsPredictTheSame() throws IOException {
    String path = tmp.resolve("fitted").toString();
    fitted.write().overwrite().save(path);
    List<Row> again = PipelineModel.load(path).transform(test).select("p", "prediction").collectAsList();
    List<Row> before = predictions.select("p", "prediction").collectAsList();
    assertEquals(before, again);

    BitopkClassificationModel model = (BitopkClassificationModel) fitted.stages()[2];
    String alone = tmp.resolve("model-alone").toString();
    model.write().save(alone);
    BitopkClassificationModel loaded = BitopkClassificationModel.load(alone);
    assertEquals(model.uid(), loaded.uid());
    assertEquals("p", loaded.getProbabilityCol());
    assertEquals(model.normalization().toString(), loaded.normalization().toString());
    Dataset<Row> features = fitted.stages()[1].transform(fitted.stages()[0].transform(test));
    assertEquals(model.transform(features).select("p").collectAsList(),
        loaded.transform(features).select("p").collectAsList());
    // model.zip is DL4J's own format: loadable without bitopk's classes
    assertArrayEquals(model.network().params().toFloatVector(),
        ModelSerializer.restoreMultiLayerNetwork(Path.of(alone, "data", "model.zip").toFile(), false).params()
            .toFloatVector());
  }

  @Test
  void theUnfittedPipelineKeepsTheEstimatorsParameters() {
    Pipeline loaded = Pipeline.load(tmp.resolve("unfitted").toString());
    BitopkClassifier estimator = (BitopkClassifier) loaded.getStages()[2];
    assertEquals(2, estimator.getWorkers());
    assertEquals("mlp-small", estimator.getModel());
    assertEquals(0.1, estimator.getDensityUp());
    assertEquals(5L, estimator.getSeed());
    assertEquals("1x8x8", estimator.getInputShape());
    assertEquals(estimator.getWorkers(), estimator.copy(new org.apache.spark.ml.param.ParamMap()).getWorkers());
    assertTrue(estimator.explainParams().contains("densityDown: downlink density"));
  }

  @Test
  void fitNeedsKryoAndSaysSo() {
    BitopkClassifier.requireKryo(sc.getConf());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BitopkClassifier.requireKryo(new org.apache.spark.SparkConf()));
    assertTrue(e.getMessage().contains("spark.serializer=org.apache.spark.serializer.KryoSerializer")
        && e.getMessage().contains("JavaSerializer"), e.getMessage());
  }

  @Test
  void badParametersAndColumnsAreRejectedNamingThem() {
    BitopkClassifier c = new BitopkClassifier();
    assertThrows(IllegalArgumentException.class, () -> c.setDensityUp(0));
    assertThrows(IllegalArgumentException.class, () -> c.setUplink("zipk"));
    assertThrows(IllegalArgumentException.class, () -> c.setInputShape("28x28"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> c.setFeaturesCol("pixels").setLabelCol("kind").fit(train));
    assertTrue(e.getMessage().startsWith("featuresCol: no column 'pixels'"), e.getMessage());
    Dataset<Row> assembled = new VectorAssembler().setInputCols(new String[] {"px0", "px1", "px2"})
        .setOutputCol("features").transform(train).withColumnRenamed("kind", "label");
    e = assertThrows(IllegalArgumentException.class, () -> new BitopkClassifier().setWorkers(2)
        .setOutputDir(tmp.resolve("never").toString()).setInputShape("1x2x2").fit(assembled));
    assertTrue(e.getMessage().startsWith("inputShape 1x2x2 holds 4 values, but the features (column features "
        + "(Vector)) have 3"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new BitopkClassifier().setModel("resnet")
        .setOutputDir(tmp.resolve("never").toString()).fit(assembled));
    assertTrue(e.getMessage().startsWith("model: ") && e.getMessage().contains("resnet"), e.getMessage());
  }
}
