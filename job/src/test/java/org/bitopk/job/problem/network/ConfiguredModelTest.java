package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.WorkerShard;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * Networks of one's own ({@code --model FILE}): a hand-written DL4J configuration and a Keras 2 file give the
 * very network the same architecture gives when built in code, and every bad file is refused in one line.
 */
class ConfiguredModelTest {
  static final Path MODELS = Path.of(System.getProperty("basedir", ".")).toAbsolutePath()
      .resolve("src/test/resources/models");
  static final Configuration HADOOP = new Configuration();

  @TempDir
  static Path tmp;

  @Test
  void handWrittenJsonOfTheThesisMlpEqualsTheBuiltInMlp() {
    ModelSpec own = ModelChoice.parse(MODELS.resolve("mlp.json").toString(), HADOOP);
    assertInstanceOf(ConfiguredModel.class, own);
    assertEquals("mlp.json", own.displayName());
    assertSameNetwork(ModelArchitecture.MLP, own, 16);
  }

  @Test
  void keras2SequentialEqualsTheSameArchitectureBuiltInCode() {
    // Keras' Dense layers start from Glorot-uniform (DL4J: XAVIER_UNIFORM) and its softmax Dense becomes an
    // OutputLayer with cross-entropy: same parameter layout, same gradient.
    ModelSpec code = new CodeBuilt(new NeuralNetConfiguration.Builder().dataType(DataType.FLOAT).updater(new NoOp())
        .list()
        .layer(new DenseLayer.Builder().nOut(64).activation(Activation.RELU).weightInit(WeightInit.XAVIER_UNIFORM)
            .build())
        .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX)
            .weightInit(WeightInit.XAVIER_UNIFORM).build())
        .setInputType(InputType.feedForward(784)).build().toJson());
    ModelSpec h5 = ModelChoice.parse(MODELS.resolve("keras/mlp-small-keras2.h5").toString(), HADOOP);
    ModelSpec json = ModelChoice.parse(MODELS.resolve("keras/mlp-small-keras2.json").toString(), HADOOP);
    assertSameNetwork(code, h5, 8);
    assertSameNetwork(code, json, 8);
    assertEquals(ModelArchitecture.MLP_SMALL.referenceTrainableParameters(),
        new NetworkObjectiveFactory(h5, 1, 28, 28, 10, 8, 1, false).dimension());
  }

  @Test
  void theRecordedValueRebuildsTheSameNetworkWithoutTheFile() throws IOException {
    Path copy = Files.copy(MODELS.resolve("mlp.json"), tmp.resolve("copy-of-mlp.json"));
    ModelSpec own = ModelChoice.parse(copy.toString(), HADOOP);
    String recorded = own.flagValue().toString();
    Files.delete(copy);
    ModelSpec again = ModelChoice.parse(recorded, HADOOP);
    assertEquals("copy-of-mlp.json", again.displayName());
    assertEquals(recorded, again.flagValue().toString());
    assertSameNetwork(own, again, 4);
  }

  @Test
  void travelsCompressed() throws IOException {
    ModelSpec vgg = ModelChoice.parse(write("vgg.json", ModelArchitecture.VGG19_BN.build(1, 3, 32, 32, 10).toJson()),
        HADOOP);
    int json = ((ConfiguredModel) vgg).configurationJson().length();
    int serialized = javaSerializedSize(vgg);
    assertTrue(json > 50_000, "VGG-19's DL4J JSON: " + json + " characters");
    assertTrue(serialized < json / 8, "serialized " + serialized + " bytes for " + json + " characters of JSON");
  }

  static Stream<Arguments> badFiles() throws IOException {
    String mlpJson = Files.readString(MODELS.resolve("mlp.json"));
    String cnnBn = ModelArchitecture.CNN_BN.build(1, 1, 28, 28, 10).toJson();
    return Stream.of(
        Arguments.of("missing file", tmp.resolve("no-such-model.json").toString(), "no such file"),
        Arguments.of("directory", Files.createDirectories(tmp.resolve("a-directory.json")).toString(), "a directory"),
        Arguments.of("not JSON", write("garbage.json", "this is not { json"), "not JSON"),
        Arguments.of("JSON array", write("array.json", "[1, 2, 3]"), "not a JSON object"),
        Arguments.of("not a MultiLayerConfiguration", write("other.json", "{\"layers\": []}"),
            "not a DL4J MultiLayerConfiguration"),
        Arguments.of("no layers", write("empty.json", "{\"confs\": []}"), "has no layers"),
        Arguments.of("ComputationGraphConfiguration", write("graph.json", new NeuralNetConfiguration.Builder()
                .graphBuilder().addInputs("in")
                .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nIn(784).nOut(10)
                    .activation(Activation.SOFTMAX).build(), "in")
                .setOutputs("out").build().toJson()),
            "is a DL4J ComputationGraphConfiguration"),
        Arguments.of("unknown layer class", write("unknown-layer.json", mlpJson.replaceFirst(
            "layers.DenseLayer", "layers.NoSuchLayer")), "not a valid DL4J MultiLayerConfiguration"),
        Arguments.of("wrong input size", write("input-100.json",
            ModelArchitecture.MLP_SMALL.build(1, 1, 10, 10, 10).toJson()),
            "takes 100 inputs, the data have 784 (1x28x28)"),
        Arguments.of("wrong output size", write("classes-5.json",
            ModelArchitecture.MLP_SMALL.build(1, 1, 28, 28, 5).toJson()),
            "the output layer has 5 outputs, the data have 10 classes"),
        Arguments.of("images of another shape", write("cifar-shaped.json",
            ModelArchitecture.CNN_BN.build(1, 3, 32, 32, 10).toJson()),
            "built for 3x32x32 images (CxHxW), the data are 1x28x28"),
        Arguments.of("not a classifier", write("regression.json", new NeuralNetConfiguration.Builder().list()
                .layer(new DenseLayer.Builder().nIn(784).nOut(16).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunction.MSE).nIn(16).nOut(10).activation(Activation.IDENTITY)
                    .build())
                .build().toJson()),
            "not a classifier"),
        Arguments.of("regularization", write("l2.json", new NeuralNetConfiguration.Builder().l2(1e-4).list()
                .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(784).nOut(10).activation(Activation.SOFTMAX)
                    .build())
                .build().toJson()),
            "has regularization"),
        Arguments.of("gradient normalization", write("clipped.json", new NeuralNetConfiguration.Builder()
                .gradientNormalization(GradientNormalization.ClipL2PerLayer).list()
                .layer(new OutputLayer.Builder(LossFunction.MCXENT).nIn(784).nOut(10).activation(Activation.SOFTMAX)
                    .build())
                .build().toJson()),
            "has gradient normalization ClipL2PerLayer"),
        Arguments.of("fails inside DL4J", write("kernel-40.json", cnnBn.replaceFirst(
                "\"kernelSize\" : \\[ 5, 5 \\]", "\"kernelSize\" : [ 40, 40 ]")),
            "DL4J cannot run the network on 1x28x28 images"),
        Arguments.of("Keras 3 file", MODELS.resolve("keras/tiny-keras3.h5").toString(), "saved by Keras 3"),
        Arguments.of(".h5 that is not HDF5", write("fake.h5", "{\"confs\": []}"), "not an HDF5 file"),
        Arguments.of("Keras functional model", write("functional.json",
            "{\"class_name\": \"Functional\", \"config\": {\"layers\": []}, \"keras_version\": \"2.15.0\"}"),
            "not a Keras Sequential model"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void everyBadFileGetsOneLineNamingIt(String name, String file, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
      ModelSpec spec = ModelChoice.parse(file, HADOOP);
      new NetworkObjectiveFactory(spec, 1, 28, 28, 10, 4, 1, false);
    });
    String message = e.getMessage();
    assertEquals(1, message.lines().count(), message);
    assertTrue(message.startsWith("--model "), message);
    String fileName = Path.of(file).getFileName().toString();
    assertTrue(message.contains(fileName), "names the file " + fileName + ": " + message);
    assertTrue(message.contains(expected), "says '" + expected + "': " + message);
  }

  @Test
  void unknownNamesListTheChoices() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ModelChoice.parse("resnet", HADOOP));
    assertEquals("--model: unknown model 'resnet': expected one of " + ModelArchitecture.cliNames()
        + ", or a DL4J configuration file (.json) or Keras file (.h5)", e.getMessage());
  }

  // ---------------------------------------------------------------------------------------------------------

  /**
   * Same parameter count, the same initial parameters for the same seed, and the same gradient of a
   * minibatch, bit for bit: the job then trains both identically.
   */
  static void assertSameNetwork(ModelSpec expected, ModelSpec actual, int batchSize) {
    LabeledImages train = Datasets.load("synthetic:n=64,test=8", null, HADOOP).train();
    WorkerShard shard = ShardSplitter.iid(train, 1, 3).get(0);
    NetworkObjectiveFactory a = new NetworkObjectiveFactory(expected, 1, 28, 28, 10, batchSize, 11, false);
    NetworkObjectiveFactory b = new NetworkObjectiveFactory(actual, 1, 28, 28, 10, batchSize, 11, false);
    assertEquals(a.dimension(), b.dimension());
    assertArrayEquals(a.statisticsIndices(), b.statisticsIndices());
    float[] x = a.newNetwork().params().toFloatVector();
    assertArrayEquals(x, b.newNetwork().params().toFloatVector(), "initial parameters");
    float[] ga = new float[x.length];
    float[] gb = new float[x.length];
    var objectiveA = a.create();
    var objectiveB = b.create();
    objectiveA.load(x);
    objectiveB.load(x);
    double lossA = objectiveA.gradient(shard, 0, 1, ga);
    double lossB = objectiveB.gradient(shard, 0, 1, gb);
    assertEquals(lossA, lossB, 0.0, "loss");
    assertArrayEquals(ga, gb, "gradient");
    assertTrue(java.util.stream.IntStream.range(0, ga.length).anyMatch(j -> ga[j] != 0f), "a non-zero gradient");
  }

  static String write(String name, String content) {
    try {
      return Files.writeString(tmp.resolve(name), content, StandardCharsets.UTF_8).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int javaSerializedSize(Object o) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.size();
  }

  /** A configuration built in code, given as the inline JSON text --model accepts. */
  record CodeBuilt(String json) implements ModelSpec {
    @Override
    public String displayName() {
      return "code";
    }

    @Override
    public MultiLayerConfiguration build(long seed, int channels, int height, int width, int classes) {
      MultiLayerConfiguration conf = MultiLayerConfiguration.fromJson(json);
      conf.getConfs().forEach(c -> c.setSeed(seed));
      return conf;
    }

    @Override
    public Object flagValue() {
      return json;
    }
  }
}
