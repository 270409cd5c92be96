package org.bitopk.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bitopk.cli.Main;
import org.bitopk.job.checkpoint.MetricLines;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --model FILE} end to end through the command line on local[2]: a hand-written DL4J configuration
 * of the thesis MLP trains bit for bit like {@code --model mlp}, the run's config.json reruns it without the
 * file, and a bad file stops the run with one line before anything is written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwnModelTrainingTest {
  static final Path MODELS = Path.of(System.getProperty("basedir", ".")).toAbsolutePath()
      .resolve("src/test/resources/models");
  static final List<String> COMMON = List.of("--dataset", "synthetic:n=512,test=64", "--workers", "2",
      "--batch-size", "16", "--max-iterations", "6", "--seed", "3", "--density-up", "0.05", "--density-down",
      "0.05", "--quiet");
  static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  @TempDir
  Path tmp;

  record Outcome(int code, String out, String err) {}

  Outcome main(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), SPARK.context(), new PrintWriter(out, true),
        new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  Path train(String name, List<String> flags) {
    Path output = tmp.resolve(name);
    List<String> args = new ArrayList<>(flags);
    args.addAll(List.of("--output", output.toString()));
    Outcome o = main(args);
    assertEquals(0, o.code(), name + ": " + o.err());
    assertTrue(Files.exists(output.resolve("_SUCCESS")), name);
    return output;
  }

  @Test
  void handWrittenThesisMlpTrainsBitForBitLikeTheBuiltInAndItsConfigReruns() throws IOException {
    Path copy = Files.copy(MODELS.resolve("mlp.json"), tmp.resolve("my-mlp.json"));
    Path builtIn = train("built-in", args("--model", "mlp"));
    Path own = train("own", args("--model", copy.toString()));

    JsonNode config = JSON.readTree(own.resolve("config.json").toFile());
    assertEquals(copy.toString(), config.at("/model/file").asText());
    assertEquals(4, config.at("/model/configuration/confs").size(), "the configuration itself is recorded");
    assertTrue(config.at("/resolved/problem").asText().endsWith("/my-mlp.json"), config.at("/resolved").toString());
    assertEquals(ModelArchitecture.MLP.referenceTrainableParameters(), config.at("/resolved/dimension").asLong());

    assertSameTraining(builtIn, own);

    // The recorded configuration is enough: the file may be gone.
    Files.delete(copy);
    Path rerun = train("rerun", List.of("--config", own.resolve("config.json").toString(), "--quiet"));
    assertSameTraining(own, rerun);
    assertEquals(config.get("model"), JSON.readTree(rerun.resolve("config.json").toFile()).get("model"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "mlp-small for 10x10 images, the first layer (DenseLayer) takes 100 inputs, the data have 784 (1x28x28)",
      "mlp-small for 5 classes, the output layer has 5 outputs, the data have 10 classes"})
  void aBadFileStopsTheRunWithOneLine(String name, String expected) throws IOException {
    int classes = name.contains("5 classes") ? 5 : 10;
    int side = name.contains("10x10") ? 10 : 28;
    Path file = Files.writeString(tmp.resolve(name.replace(' ', '-') + ".json"),
        ModelArchitecture.MLP_SMALL.build(1, 1, side, side, classes).toJson());
    Path output = tmp.resolve("bad-" + side + "-" + classes);
    Outcome o = main(args("--model", file.toString(), "--output", output.toString()));
    assertEquals(2, o.code(), o.err());
    assertEquals(1, o.err().lines().count(), o.err());
    assertTrue(o.err().startsWith("bitopk: --model " + file + ": " + expected), o.err());
    assertFalse(Files.exists(output.resolve("_SUCCESS")));
    assertFalse(Files.exists(output.resolve("config.json")), "nothing written for a model that does not fit");
    assertEquals("", o.out());
  }

  /** Same metrics line by line (times aside) and the same final model, bit for bit. */
  static void assertSameTraining(Path a, Path b) throws IOException {
    List<Map<String, JsonNode>> linesA = metricLines(a);
    List<Map<String, JsonNode>> linesB = metricLines(b);
    assertEquals(6, linesA.size());
    assertEquals(linesA, linesB);
    MultiLayerNetwork modelA = ModelSerializer.restoreMultiLayerNetwork(a.resolve("model.zip").toFile(), false);
    MultiLayerNetwork modelB = ModelSerializer.restoreMultiLayerNetwork(b.resolve("model.zip").toFile(), false);
    float[] x = modelA.params().toFloatVector();
    assertArrayEquals(x, modelB.params().toFloatVector());
    double loss0 = linesA.get(0).get("loss").asDouble();
    double loss5 = linesA.get(5).get("loss").asDouble();
    assertTrue(Double.isFinite(loss0) && loss0 != loss5, "training moves the loss: " + loss0 + " -> " + loss5);
  }

  static List<Map<String, JsonNode>> metricLines(Path run) throws IOException {
    List<Map<String, JsonNode>> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics/iterations.jsonl"))) {
      if (!line.isBlank()) {
        out.add(MetricLines.withoutTimes(JSON.readTree(line)));
      }
    }
    return out;
  }

  static List<String> args(String... more) {
    List<String> all = new ArrayList<>(COMMON);
    all.addAll(List.of(more));
    return all;
  }
}
