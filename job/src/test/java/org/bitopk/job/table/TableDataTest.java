package org.bitopk.job.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.Normalization;
import org.bitopk.datasets.NormalizationSpec;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TableSplit;
import org.bitopk.datasets.WorkerShard;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tables become the same shards as files: the reference is {@link ShardSplitter} applied on the driver to
 * {@link LabeledImages} normalised by {@link Normalization}'s tables, the way the IDX reader does it.
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TableDataTest {
  private static final int N = 230;
  private static final int SIDE = 4;
  private static final int L = SIDE * SIDE;
  private static final Normalization MNIST = Normalization.MNIST;

  private SparkSession spark;
  private byte[] pixels;
  private int[] labels;

  @BeforeAll
  void start() {
    spark = SparkSession.builder().master("local[2]").appName("TableDataTest")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    Random random = new Random(5);
    pixels = new byte[N * L];
    random.nextBytes(pixels);
    labels = new int[N];
    for (int i = 0; i < N; i++) {
      labels[i] = random.nextInt(10);
    }
  }

  @AfterAll
  void stop() {
    spark.stop();
  }

  /** label + 16 int columns p0..p15 holding the raw pixel values, in 3 partitions, in example order. */
  private Dataset<Row> scalarTable() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      Object[] values = new Object[L + 1];
      values[0] = labels[i];
      for (int j = 0; j < L; j++) {
        values[j + 1] = pixels[i * L + j] & 0xff;
      }
      rows.add(RowFactory.create(values));
    }
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField("label", DataTypes.IntegerType, false));
    for (int j = 0; j < L; j++) {
      fields.add(DataTypes.createStructField("p" + j, DataTypes.IntegerType, true));
    }
    return frame(rows, DataTypes.createStructType(fields));
  }

  private Dataset<Row> frame(List<Row> rows, StructType schema) {
    return spark.createDataFrame(new JavaSparkContext(spark.sparkContext()).parallelize(rows, 3), schema);
  }

  /** The IDX reader's view of the same examples. */
  private LabeledImages reference() {
    float[] features = new float[N * L];
    for (int i = 0; i < features.length; i++) {
      features[i] = MNIST.apply(0, pixels[i]);
    }
    return LabeledImages.of(features, labels, 1, SIDE, SIDE, 10);
  }

  private TableData.Builder builder(Dataset<Row> table) {
    return TableData.builder().train(table, "the test table").workers(4).seed(11)
        .normalization(NormalizationSpec.parse("0.1307:0.3081", 255));
  }

  @ParameterizedTest(name = "nonIid={0}")
  @ValueSource(booleans = {false, true})
  void separateTestTableGivesTheShardsOfTheFileReaderValueForValue(boolean nonIid) {
    Dataset<Row> table = scalarTable();
    try (TableData data = builder(table).nonIid(nonIid).test(table, "the test table").build()) {
      LabeledImages all = reference();
      List<WorkerShard> expected = nonIid ? ShardSplitter.nonIid(all, 4, 11) : ShardSplitter.iid(all, 4, 11);
      assertShardsEqual(expected, data.shards().collect());
      assertEquals(N, data.testRows());
      assertArrayEquals(new int[] {1, SIDE, SIDE}, new int[] {data.channels(), data.height(), data.width()});
      assertEquals(10, data.labels().numClasses());
      LabeledImages test = concat(data.test().collect());
      assertArrayEquals(all.features(), test.features());
      assertArrayEquals(all.labels(), test.labels());
    }
  }

  @Test
  void testFractionHoldsOutASeededSetAndSplitsTheRestByTheSameRules() {
    try (TableData data = builder(scalarTable()).testFraction(0.2).build()) {
      boolean[] test = TableSplit.testRows(N, 46, 11);
      int[] trainIdx = java.util.stream.IntStream.range(0, N).filter(i -> !test[i]).toArray();
      int[] testIdx = java.util.stream.IntStream.range(0, N).filter(i -> test[i]).toArray();
      LabeledImages all = reference();
      assertShardsEqual(ShardSplitter.iid(all.select(trainIdx), 4, 11), data.shards().collect());
      LabeledImages heldOut = concat(data.test().collect());
      assertArrayEquals(all.select(testIdx).features(), heldOut.features());
      assertEquals(46, data.testRows());
      assertEquals(N - 46 - 4 * ((N - 46) / 4), data.droppedRows());
      // A lost cached partition is recomputed from the table through the same broadcast split.
      List<WorkerShard> before = data.shards().collect();
      data.shards().unpersist(true);
      assertShardsEqual(before, data.shards().collect());
    }
  }

  @Test
  void autoNormalisationIsTheTrainingRowsMeanAndStd() {
    try (TableData data = builder(scalarTable()).normalization(NormalizationSpec.parse("auto", 255)).testFraction(0.2)
        .build()) {
      boolean[] test = TableSplit.testRows(N, 46, 11);
      double sum = 0;
      double sq = 0;
      long n = 0;
      for (int i = 0; i < N; i++) {
        if (!test[i]) {
          for (int j = 0; j < L; j++) {
            double x = (pixels[i * L + j] & 0xff) / 255.0;
            sum += x;
            sq += x * x;
            n++;
          }
        }
      }
      double mean = sum / n;
      double std = Math.sqrt(sq / n - mean * mean);
      assertEquals(mean, data.normalization().mean()[0], 1e-6);
      assertEquals(std, data.normalization().std()[0], 1e-6);
      // the training examples are then centred: their mean is 0 and their variance 1
      double s = 0;
      double q = 0;
      long m = 0;
      for (WorkerShard shard : data.shards().collect()) {
        for (float v : shard.data().features()) {
          s += v;
          q += v * v;
          m++;
        }
      }
      assertEquals(0, s / m, 0.05);
      assertEquals(1, q / m, 0.1);
    }
  }

  @Test
  void arrayAndVectorColumnsAndStringLabels() {
    String[] names = {"shirt", "bag", "coat"};
    List<Row> arrays = new ArrayList<>();
    List<Row> vectors = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      double[] x = new double[L];
      Float[] f = new Float[L];
      for (int j = 0; j < L; j++) {
        x[j] = pixels[i * L + j] & 0xff;
        f[j] = (float) x[j];
      }
      arrays.add(RowFactory.create(names[labels[i] % 3], f));
      vectors.add(RowFactory.create(names[labels[i] % 3], i % 2 == 0 ? Vectors.dense(x) : Vectors.dense(x).toSparse()));
    }
    StructType arraySchema = new StructType().add("kind", DataTypes.StringType)
        .add("pixels", DataTypes.createArrayType(DataTypes.FloatType));
    StructType vectorSchema = new StructType().add("kind", DataTypes.StringType)
        .add("features", SQLDataTypes.VectorType());
    int[] expectedLabels = new int[N];
    for (int i = 0; i < N; i++) {
      expectedLabels[i] = new int[] {2, 0, 1}[labels[i] % 3];   // sorted: bag=0, coat=1, shirt=2
    }
    for (Dataset<Row> table : List.of(frame(arrays, arraySchema), frame(vectors, vectorSchema))) {
      try (TableData data = builder(table).label("kind").inputShape(new int[] {1, 2, 8}).build()) {
        assertEquals(List.of("bag", "coat", "shirt"), data.labels().classNames());
        assertEquals(2, data.height());
        boolean[] test = TableSplit.testRows(N, 23, 11);
        for (WorkerShard shard : data.shards().collect()) {
          assertEquals(3, shard.data().numClasses());
          for (int label : shard.data().labels()) {
            assertTrue(label >= 0 && label < 3);
          }
        }
        int[] trainIdx = java.util.stream.IntStream.range(0, N).filter(i -> !test[i]).toArray();
        LabeledImages expected = LabeledImages.of(reference().select(trainIdx).features(),
            Arrays.stream(trainIdx).map(i -> expectedLabels[i]).toArray(), 1, 2, 8, 3);
        assertShardsEqual(ShardSplitter.iid(expected, 4, 11), data.shards().collect());
      }
    }
  }

  @Test
  void shapeIsInferredFromTheFeatureCount() {
    assertArrayEquals(new int[] {1, 28, 28}, InputShape.infer(784));
    assertArrayEquals(new int[] {3, 32, 32}, InputShape.infer(3072));
    assertArrayEquals(new int[] {1, 1, 10}, InputShape.infer(10));
  }

  static Stream<Arguments> badTables() {
    return Stream.of(
        Arguments.of("missing label column", "missing", null, null, "--label: no label column 'missing'"),
        Arguments.of("missing feature column", "label", "p0,nope", null, "--features: no feature column 'nope'"),
        Arguments.of("no column with prefix", "label", "q*", null, "no column of the test table starts with 'q'"),
        Arguments.of("shape not matching", "label", null, new int[] {1, 28, 28}, "--input-shape 1x28x28 holds 784 "
            + "values, but the features (16 numeric columns (p0 .. p15)) have 16"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badTables")
  void badSettingsNameTheSettingAndTheColumn(String name, String label, String features, int[] shape,
      String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(scalarTable()).label(label).features(features).inputShape(shape).build());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  private Dataset<Row> withRow(int at, Object label, Object firstPixel) {
    List<Row> rows = new ArrayList<>(scalarTable().collectAsList());
    Object[] values = new Object[L + 1];
    for (int j = 0; j < L + 1; j++) {
      values[j] = rows.get(at).get(j);
    }
    values[0] = label;
    values[1] = firstPixel;
    rows.set(at, RowFactory.create(values));
    StructType schema = new StructType().add("label", DataTypes.DoubleType, true);
    for (int j = 0; j < L; j++) {
      schema = schema.add("p" + j, DataTypes.DoubleType, true);
    }
    List<Row> doubles = new ArrayList<>();
    for (Row r : rows) {
      Object[] v = new Object[L + 1];
      for (int j = 0; j < L + 1; j++) {
        v[j] = r.get(j) == null ? null : ((Number) r.get(j)).doubleValue();
      }
      doubles.add(RowFactory.create(v));
    }
    return frame(doubles, schema);
  }

  static Stream<Arguments> badRows() {
    return Stream.of(
        Arguments.of("null feature", 3.0, null, "row 101 of the test table: feature column 'p0' is null"),
        Arguments.of("NaN feature", 3.0, Double.NaN, "row 101 of the test table: feature column 'p0' is NaN"),
        Arguments.of("null label", null, 1.0, "row 101 of the test table: label column 'label' is null"),
        Arguments.of("negative label", -1.0, 1.0, "--label: label out of range: row 101 of the test table has label -1"),
        Arguments.of("fractional label", 2.5, 1.0, "label out of range: row 101 of the test table has label 2.5"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRows")
  void badRowsAreReportedByTheirNumber(String name, Double label, Double pixel, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(withRow(100, label, pixel)).build());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void testLabelsMustBeTrainingLabels() {
    Dataset<Row> train = scalarTable().filter("label < 9");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(train).test(scalarTable(), "the other table").build());
    assertTrue(e.getMessage().contains("label out of range") && e.getMessage().contains("the other table")
        && e.getMessage().contains("has label 9; the training labels are 0..8"), e.getMessage());
  }

  @Test
  void fewerExamplesThanWorkers() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(scalarTable().limit(10)).workers(12).build());
    assertTrue(e.getMessage().startsWith("--workers 12:") && e.getMessage().contains("has 9 training example(s)"),
        e.getMessage());
  }

  private static LabeledImages concat(List<LabeledImages> blocks) {
    int n = blocks.stream().mapToInt(LabeledImages::count).sum();
    LabeledImages first = blocks.get(0);
    float[] f = new float[n * first.featureLength()];
    int[] l = new int[n];
    int at = 0;
    for (LabeledImages b : blocks) {
      System.arraycopy(b.features(), 0, f, at * first.featureLength(), b.features().length);
      System.arraycopy(b.labels(), 0, l, at, b.count());
      at += b.count();
    }
    return LabeledImages.of(f, l, first.channels(), first.height(), first.width(), first.numClasses());
  }

  private static void assertShardsEqual(List<WorkerShard> expected, List<WorkerShard> actual) {
    assertEquals(expected.size(), actual.size());
    for (int w = 0; w < expected.size(); w++) {
      assertEquals(w, actual.get(w).workerId());
      assertArrayEquals(expected.get(w).data().labels(), actual.get(w).data().labels(), "labels of worker " + w);
      assertArrayEquals(expected.get(w).data().features(), actual.get(w).data().features(), "features of worker " + w);
    }
  }
}
