package org.bitopk.job.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.TableProblem;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Training from tables end to end through the command line: the same synthetic 28×28 images written as IDX
 * files, as Parquet (an array column) and as a Kaggle-style CSV ({@code label,1x1,...,28x28}); for the same
 * split and seed the table runs reproduce the IDX runs bit for bit (every metric line, the final model).
 */
@Tag("spark-api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TableTrainingTest {
  @org.junit.jupiter.api.extension.RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  private static final int TRAIN = 600;
  private static final int TEST = 200;
  private static final int PIXELS = 784;
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * The only fields two runs with the same arithmetic may differ in: the run's name, timings, and how many
   * replicas were restored from the snapshot and so how many downlink bytes reached the executors (which
   * task slot gets which worker is Spark's choice).
   */
  private static final List<String> VOLATILE = List.of("run", "replica_resyncs", "down_bytes_delivered",
      "time_gradient_ms", "time_compress_ms",
      "time_aggregate_ms", "time_broadcast_ms", "time_total_ms", "time_catchup_ms", "time_job_ms",
      "time_task_path_ms");

  @TempDir
  static Path tmp;

  private SparkSession spark;
  private JavaSparkContext sc;
  private byte[] trainPixels;
  private byte[] trainLabels;
  private byte[] testPixels;
  private byte[] testLabels;
  private Path idx;

  @BeforeAll
  void writeTheSameImagesThreeWays() throws IOException {
    sc = SPARK.context();
    spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
    Random random = new Random(2024);
    byte[][] prototypes = new byte[10][PIXELS];
    for (byte[] p : prototypes) {
      random.nextBytes(p);
    }
    trainPixels = new byte[TRAIN * PIXELS];
    trainLabels = new byte[TRAIN];
    testPixels = new byte[TEST * PIXELS];
    testLabels = new byte[TEST];
    images(prototypes, trainPixels, trainLabels, random);
    images(prototypes, testPixels, testLabels, random);
    idx = Files.createDirectories(tmp.resolve("idx"));
    Files.write(idx.resolve("train-images-idx3-ubyte"), idxImages(trainPixels, TRAIN));
    Files.write(idx.resolve("train-labels-idx1-ubyte"), idxLabels(trainLabels));
    Files.write(idx.resolve("t10k-images-idx3-ubyte"), idxImages(testPixels, TEST));
    Files.write(idx.resolve("t10k-labels-idx1-ubyte"), idxLabels(testLabels));
    writeParquet(trainPixels, trainLabels, tmp.resolve("train.parquet"));
    writeParquet(testPixels, testLabels, tmp.resolve("test.parquet"));
    writeKaggleCsv(trainPixels, trainLabels, tmp.resolve("train.csv"));
    writeKaggleCsv(testPixels, testLabels, tmp.resolve("test.csv"));
  }


  /** Class prototype plus Gaussian noise (σ = 60 grey levels), labels cycling so every class is present. */
  private static void images(byte[][] prototypes, byte[] pixels, byte[] labels, Random random) {
    for (int i = 0; i < labels.length; i++) {
      int label = (i * 7 + random.nextInt(3)) % 10;
      labels[i] = (byte) label;
      for (int j = 0; j < PIXELS; j++) {
        int v = (prototypes[label][j] & 0xff) + (int) Math.round(60 * random.nextGaussian());
        pixels[i * PIXELS + j] = (byte) Math.max(0, Math.min(255, v));
      }
    }
  }

  private static byte[] idxImages(byte[] pixels, int count) {
    return ByteBuffer.allocate(16 + pixels.length).putInt(2051).putInt(count).putInt(28).putInt(28).put(pixels)
        .array();
  }

  private static byte[] idxLabels(byte[] labels) {
    return ByteBuffer.allocate(8 + labels.length).putInt(2049).putInt(labels.length).put(labels).array();
  }

  /** label INT, pixels ARRAY<INT>; one file, so Spark reads the rows in the order written. */
  private void writeParquet(byte[] pixels, byte[] labels, Path out) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < labels.length; i++) {
      Integer[] values = new Integer[PIXELS];
      for (int j = 0; j < PIXELS; j++) {
        values[j] = pixels[i * PIXELS + j] & 0xff;
      }
      rows.add(RowFactory.create((int) labels[i], values));
    }
    StructType schema = new StructType().add("label", DataTypes.IntegerType)
        .add("pixels", DataTypes.createArrayType(DataTypes.IntegerType));
    spark.createDataFrame(rows, schema).coalesce(1).write().parquet(out.toString());
  }

  /** The Kaggle "Digit Recognizer" layout: header label,1x1,1x2,...,28x28, then label and 784 pixels per line. */
  static void writeKaggleCsv(byte[] pixels, byte[] labels, Path out) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(out)) {
      StringBuilder header = new StringBuilder("label");
      for (int r = 1; r <= 28; r++) {
        for (int c = 1; c <= 28; c++) {
          header.append(',').append(r).append('x').append(c);
        }
      }
      w.write(header.append('\n').toString());
      for (int i = 0; i < labels.length; i++) {
        StringBuilder line = new StringBuilder().append(labels[i]);
        for (int j = 0; j < PIXELS; j++) {
          line.append(',').append(pixels[i * PIXELS + j] & 0xff);
        }
        w.write(line.append('\n').toString());
      }
    }
  }

  private record Outcome(int code, String out, String err) {}

  private Outcome main(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), sc, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  private Path train(String name, List<String> source, String split) {
    Path out = tmp.resolve(name);
    List<String> args = new ArrayList<>(source);
    args.addAll(List.of("--model", "mlp-small", "--workers", "4", "--batch-size", "20", "--epochs", "2",
        "--split", split, "--seed", "7", "--lr", "0.05", "--consistency-check-every", "5", "--quiet",
        "--output", out.toString()));
    Outcome o = main(args);
    assertEquals(0, o.code(), name + ": " + o.err());
    return out;
  }

  static Stream<Arguments> tables() {
    return Stream.of(
        Arguments.of("parquet", "iid", List.of("--data-format", "parquet", "--data", "train.parquet",
            "--test-data", "test.parquet", "--features", "pixels")),
        Arguments.of("csv", "non-iid", List.of("--data", "csv:train.csv", "--test-data", "test.csv",
            "--label", "label")));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("tables")
  void aTableTrainsBitForBitLikeTheSameImagesAsIdxFiles(String format, String split, List<String> source)
      throws IOException {
    Path fromIdx = train("idx-" + format, List.of("--dataset", "mnist", "--data", idx.toString()), split);
    List<String> args = new ArrayList<>();
    for (String a : source) {
      args.add(a.endsWith(".parquet") || a.endsWith(".csv") ? a.replaceFirst("^(csv:)?", "$1" + tmp + "/") : a);
    }
    // the IDX reader's normalisation: 8-bit pixels / 255, then MNIST's mean and std
    args.addAll(List.of("--feature-scale", "255", "--normalize", "0.1307:0.3081"));
    Path fromTable = train("table-" + format, args, split);

    List<String> idxLines = Files.readAllLines(fromIdx.resolve("metrics/iterations.jsonl"));
    List<String> tableLines = Files.readAllLines(fromTable.resolve("metrics/iterations.jsonl"));
    assertEquals(2 * (TRAIN / 4 / 20), idxLines.size(), "2 epochs of floor(150/20) rounds");
    assertEquals(withoutVolatile(idxLines), withoutVolatile(tableLines));
    assertEquals(withoutVolatile(Files.readAllLines(fromIdx.resolve("metrics/epochs.jsonl"))),
        withoutVolatile(Files.readAllLines(fromTable.resolve("metrics/epochs.jsonl"))));
    float[] a = ModelSerializer.restoreMultiLayerNetwork(fromIdx.resolve("model.zip").toFile(), false).params()
        .toFloatVector();
    float[] b = ModelSerializer.restoreMultiLayerNetwork(fromTable.resolve("model.zip").toFile(), false).params()
        .toFloatVector();
    assertArrayEquals(a, b, "final models");
    JsonNode last = JSON.readTree(Files.readAllLines(fromTable.resolve("metrics/epochs.jsonl")).get(1));
    assertTrue(last.get("test_accuracy").asDouble() > 0.5, "it learns: " + last);

    JsonNode resolved = JSON.readTree(fromTable.resolve("config.json").toFile()).get("resolved");
    JsonNode idxResolved = JSON.readTree(fromIdx.resolve("config.json").toFile()).get("resolved");
    assertEquals(idxResolved.get("train_examples"), resolved.get("train_examples"), "the same images trained on");
    assertEquals(TRAIN, resolved.get("train_examples").asInt(), "every row of the training table");
    String summary = String.format(java.util.Locale.ROOT, "%,d train, %,d test examples", TRAIN, TEST);
    assertTrue(Files.readString(fromTable.resolve("summary.txt")).contains(summary), summary);
    JsonNode table = resolved.get("table");
    assertEquals(TRAIN, table.get("rows").asInt());
    assertEquals(TEST, table.get("test_rows").asInt());
    assertEquals("1x28x28", table.get("input_shape").asText());
    assertEquals(10, table.get("classes").asInt());
  }

  private static List<JsonNode> withoutVolatile(List<String> lines) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : lines) {
      ObjectNode node = (ObjectNode) JSON.readTree(line);
      node.remove(VOLATILE);
      out.add(node);
    }
    return out;
  }

  @Test
  void kaggleCsvNeedsOnlyItsFormatAndLabel() throws IOException {
    Path out = tmp.resolve("kaggle");
    Outcome o = main(List.of("--data-format", "csv", "--data", tmp.resolve("train.csv").toString(), "--label", "label",
        "--output", out.toString(), "--quiet"));
    assertEquals(0, o.code(), o.err());
    assertTrue(Files.exists(out.resolve("_SUCCESS")));
    JsonNode config = JSON.readTree(out.resolve("config.json").toFile());
    JsonNode table = config.get("resolved").get("table");
    assertEquals("784 numeric columns (1x1 .. 28x28)", table.get("features").asText());
    assertEquals("1x28x28", table.get("input_shape").asText());
    assertEquals(60, table.get("test_rows").asInt(), "10% held out");
    assertEquals(540 - 4 * 135, table.get("dropped_rows").asInt());
    // auto normalisation: the mean and std of the held-in rows' pixels, computed here independently
    boolean[] heldOut = new boolean[TRAIN];
    for (int r : TableData.testRows(TRAIN, 0.1, 42)) {
      heldOut[r] = true;
    }
    double sum = 0;
    double sq = 0;
    long n = 0;
    for (int i = 0; i < TRAIN; i++) {
      if (!heldOut[i]) {
        for (int j = 0; j < PIXELS; j++) {
          double v = trainPixels[i * PIXELS + j] & 0xff;
          sum += v;
          sq += v * v;
          n++;
        }
      }
    }
    double mean = sum / n;
    assertEquals(mean, table.get("normalization").get("mean").get(0).asDouble(), 1e-3);
    assertEquals(Math.sqrt(sq / n - mean * mean), table.get("normalization").get("std").get(0).asDouble(), 1e-3);
    assertEquals("csv", config.get("data-format").asText());
    assertEquals("mlp", config.get("model").asText());
  }

  @Test
  void whatEveryRoundShipsStaysSmall() {
    SparkSession session = spark;
    TableData data = TableData.builder().train(session.read().parquet(tmp.resolve("train.parquet").toString()),
        "parquet train.parquet").features("pixels").test(session.read().parquet(tmp.resolve("test.parquet")
        .toString()), "parquet test.parquet").workers(4).seed(1).build();
    try (TableProblem problem = TableProblem.create(sc, data, ModelArchitecture.MLP, 16, 1, InputNames.COMMAND_LINE)) {
      assertEquals(4, problem.shards().getNumPartitions());
      int partition = serializedSize(problem.shards().partitions().get(0));
      assertTrue(partition < 2 * 1024, "serialized partition of the shard RDD: " + partition + " bytes");
      int factory = serializedSize(problem.objectiveFactory());
      assertTrue(factory < 4 * 1024, "serialized objective factory: " + factory + " bytes");
      assertEquals(List.of(150, 150, 150, 150), java.util.Arrays.stream(data.shardSizes()).boxed().toList());
    }
  }

  private static int serializedSize(Object o) {
    return org.apache.spark.SparkEnv.get().closureSerializer().newInstance()
        .serialize(o, scala.reflect.ClassTag$.MODULE$.apply(Object.class)).remaining();
  }

  /**
   * A JSON-lines table of 4x4 images whose pixel columns p0 .. p15 Spark's JSON source would sort by name (p10
   * before p2) trains exactly like the CSV of the same rows, whose header keeps the file's order.
   */
  @Test
  void jsonLinesKeepTheFilesColumnOrder() throws IOException {
    StringBuilder json = new StringBuilder();
    StringBuilder csv = new StringBuilder("label");
    for (int p = 0; p < 16; p++) {
      csv.append(",p").append(p);
    }
    csv.append('\n');
    Random random = new Random(5);
    for (int i = 0; i < 48; i++) {
      int label = i % 3;
      json.append("{\"label\":").append(label);
      csv.append(label);
      for (int p = 0; p < 16; p++) {
        int v = (p % 3 == label ? 200 : 0) + random.nextInt(50);
        json.append(",\"p").append(p).append("\":").append(v);
        csv.append(',').append(v);
      }
      json.append("}\n");
      csv.append('\n');
    }
    Path jsonFile = Files.writeString(tmp.resolve("pixels.jsonl"), json);
    Path csvFile = Files.writeString(tmp.resolve("pixels.csv"), csv);
    assertEquals("p10", spark.read().json(jsonFile.toString()).columns()[3],
        "Spark's own order is by name: label, p0, p1, p10");

    List<String> lines = new ArrayList<>();
    for (String data : List.of("json:" + jsonFile, "csv:" + csvFile)) {
      Path out = tmp.resolve("order-" + data.substring(0, data.indexOf(':')));
      Outcome o = main(List.of("--data", data, "--model", "mlp-small", "--workers", "2", "--batch-size", "4",
          "--max-iterations", "4", "--seed", "3", "--quiet", "--output", out.toString()));
      assertEquals(0, o.code(), data + ": " + o.err());
      lines.add(withoutVolatile(Files.readAllLines(out.resolve("metrics/iterations.jsonl"))).toString());
    }
    assertEquals(lines.get(1), lines.get(0), "the JSON table feeds its pixels in the file's order");
  }

  @Test
  void libsvmGivesASparseVectorColumn() throws IOException {
    StringBuilder text = new StringBuilder();
    Random random = new Random(3);
    for (int i = 0; i < 40; i++) {
      int label = i % 3;
      text.append(label).append(' ').append(1 + label).append(":1 4:").append(random.nextInt(5) + 1).append('\n');
    }
    Path file = tmp.resolve("sparse.libsvm");
    Files.writeString(file, text);
    Path out = tmp.resolve("libsvm-run");
    Outcome o = main(List.of("--data", "libsvm:" + file, "--workers", "2", "--batch-size", "4", "--model",
        "mlp-small", "--max-iterations", "3", "--quiet", "--output", out.toString()));
    assertEquals(0, o.code(), o.err());
    JsonNode table = JSON.readTree(out.resolve("config.json").toFile()).get("resolved").get("table");
    assertEquals("column features (Vector)", table.get("features").asText());
    assertEquals("1x2x2", table.get("input_shape").asText());
    assertEquals(3, table.get("classes").asInt());
    assertEquals(4, table.get("test_rows").asInt());
  }

  static Stream<Arguments> badTables() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("bad"));
    Path nullPixel = csv(dir, "null.csv", "label,a,b,c,d\n1,1,2,3,4\n2,1,,3,4\n");
    Path nanPixel = csv(dir, "nan.csv", "label,a,b,c,d\n1,1,2,3,4\n2,1,NaN,3,4\n0,0,0,0,0\n");
    Path text = csv(dir, "text.csv", "label,a,b,c,d\n1,1,2,x,4\n2,1,5,y,4\n");
    Path negative = csv(dir, "negative.csv", "label,a,b,c,d\n1,1,2,3,4\n-1,1,2,3,4\n0,0,0,0,0\n");
    Path fine = csv(dir, "fine.csv", "label,a,b,c,d\n1,1,2,3,4\n2,1,2,3,4\n0,0,0,0,0\n1,1,1,1,1\n");
    Path unseen = csv(dir, "unseen.csv", "label,a,b,c,d\n7,1,2,3,4\n");
    Path hugeLabel = csv(dir, "huge-label.csv", "label,a,b,c,d\n1,1,2,3,4\n2147483647,1,2,3,4\n0,0,0,0,0\n");
    String wideHeader = "label," + java.util.stream.IntStream.range(0, 50_000).mapToObj(i -> "c" + i)
        .collect(java.util.stream.Collectors.joining(","));
    Path wide = csv(dir, "wide.csv", wideHeader + "\n" + wideHeader.replaceAll("[a-z]+[0-9]*", "1") + "\n");
    return Stream.of(
        Arguments.of("50,001 columns", List.of("--data", "csv:" + wide, "--workers", "1"), "--data",
            "a row has more than 20,480 columns, the most Spark's CSV reader takes"),
        Arguments.of("label 2^31-1", List.of("--data", "csv:" + hugeLabel, "--workers", "1"), "--label",
            "has label 2147483647; at most " + org.bitopk.datasets.LabelIndex.MAX_CLASSES + " classes are supported"),
        Arguments.of("unknown format", List.of("--data-format", "xlsx", "--data", fine.toString()), "--data-format",
            "unknown format 'xlsx'"),
        Arguments.of("missing path", List.of("--data", "parquet:" + dir.resolve("nope")), "--data", "nope"),
        Arguments.of("missing column", List.of("--data", "csv:" + fine, "--label", "class"), "--label",
            "no label column 'class'"),
        Arguments.of("wrong type", List.of("--data", "csv:" + text), "--features", "feature column 'c'"),
        Arguments.of("null feature", List.of("--data", "csv:" + nullPixel, "--workers", "1"), "--data",
            "row 2 of csv " + nullPixel + ": feature column 'b' is null"),
        Arguments.of("NaN feature", List.of("--data", "csv:" + nanPixel, "--workers", "1"), "--data",
            "row 2 of csv " + nanPixel + ": feature column 'b' is NaN"),
        Arguments.of("label out of range", List.of("--data", "csv:" + negative, "--workers", "1"), "--label",
            "label out of range: row 2 of csv " + negative + " has label -1"),
        Arguments.of("test label out of range", List.of("--data", "csv:" + fine, "--test-data", unseen.toString(),
            "--workers", "1"), "--label", "has label 7; the training labels are 0..2"),
        Arguments.of("shape not matching", List.of("--data", "csv:" + fine, "--input-shape", "1x2x3"),
            "--input-shape", "1x2x3 holds 6 values, but the features (4 numeric columns (a .. d)) have 4"),
        Arguments.of("fewer examples than workers", List.of("--data", "csv:" + fine, "--workers", "5",
            "--test-data", fine.toString()), "--workers", "has 4 training example(s)"),
        Arguments.of("flag without table", List.of("--label", "x"), "--label", "only for table input"),
        Arguments.of("dataset and table", List.of("--dataset", "mnist", "--data", "csv:" + fine), "--dataset",
            "not with --data-format"),
        Arguments.of("bad normalisation", List.of("--data", "csv:" + fine, "--normalize", "0.5"), "--normalize",
            "MEAN:STD"));
  }

  private static Path csv(Path dir, String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content);
    return file;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badTables")
  void badTablesGiveOneLineNamingTheFlagAndExitTwo(String name, List<String> args, String flag, String says) {
    Path out = tmp.resolve("bad-run-" + name.replace(' ', '-'));
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--batch-size", "1", "--max-iterations", "1", "--quiet", "--output", out.toString()));
    Outcome o = main(all);
    assertEquals(2, o.code(), name + ": " + o.err() + o.out());
    assertEquals(1, o.err().lines().count(), name + ": one line, got:\n" + o.err());
    assertTrue(o.err().startsWith("bitopk: " + flag), name + ": " + o.err());
    assertTrue(o.err().contains(says), name + ": " + o.err());
    assertFalse(Files.exists(out.resolve("_SUCCESS")));
    assertNotEquals("", says);
  }
}
