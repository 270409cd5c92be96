package org.bitopk.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.apache.hadoop.conf.Configuration;
import org.bitopk.cli.Main;
import org.bitopk.job.report.ChartSeries;
import org.bitopk.job.report.RunMetrics;
import org.bitopk.job.report.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-epoch run of 100 rounds through the command line, as the default run is one epoch: with the default
 * --eval-every it evaluates after every tenth of its rounds too, so its report draws test accuracy as a curve of
 * at least 5 points; the evaluations change nothing of the training (its first 30 rounds run alone, which
 * evaluate only at their end, have the same losses and bytes bit for bit, though the rounds after 9, 19 and 29
 * evaluated in the long run).
 */
class ShortRunEvaluationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** 3,200 examples on 2 workers of batch 16: 100 rounds in the epoch. */
  private static final List<String> RUN = List.of("--dataset", "synthetic:n=3200,test=100,seed=5", "--model",
      "mlp-small", "--workers", "2", "--batch-size", "16", "--density-up", "0.05", "--density-down", "0.05",
      "--seed", "3", "--quiet");

  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @Test
  void aShortRunsAccuracyIsACurveAndItsEvaluationsChangeNothing(@TempDir Path tmp) throws IOException {
    Path often = train(tmp.resolve("default"), List.of());
    Path first = train(tmp.resolve("first-30"), List.of("--max-iterations", "30"));

    List<JsonNode> iterations = lines(often, "iterations");
    assertEquals(100, iterations.size());
    List<Long> evaluated = new ArrayList<>();
    for (JsonNode line : iterations) {
      if (line.has("test_accuracy")) {
        evaluated.add(line.get("iteration").asLong());
        assertTrue(line.has("test_loss"), line.toString());
      }
    }
    assertEquals(List.of(9L, 19L, 29L, 39L, 49L, 59L, 69L, 79L, 89L), evaluated, "after every tenth of the rounds");
    ChartSeries accuracy = RunReport.charts(RunMetrics.read(often.toString(), new Configuration())).stream()
        .filter(panel -> panel.title().equals("Test accuracy")).findFirst().orElseThrow()
        .series("test accuracy").orElseThrow();
    assertTrue(accuracy.size() >= 5, accuracy.size() + " points");
    assertEquals(evaluated.size() + 1, accuracy.size(), "the evaluations inside the epoch and its end");
    assertEquals(0.1, accuracy.x()[0], 1e-12);
    assertEquals(1.0, accuracy.x()[accuracy.size() - 1], 1e-12);
    double end = lines(often, "epochs").get(0).get("test_accuracy").asDouble();
    assertEquals(100 * end, accuracy.y()[accuracy.size() - 1], 1e-9);
    assertEquals(100 * iterations.get(49).get("test_accuracy").asDouble(), accuracy.y()[4], 1e-9);

    List<JsonNode> plain = lines(first, "iterations");
    assertEquals(30, plain.size());
    assertTrue(plain.stream().noneMatch(line -> line.has("test_accuracy")), "30 rounds: too short to evaluate more");
    for (int t = 0; t < 30; t++) {
      assertEquals(plain.get(t).get("loss").asDouble(), iterations.get(t).get("loss").asDouble(), "round " + t);
      assertEquals(plain.get(t).get("up_bytes").asLong(), iterations.get(t).get("up_bytes").asLong(), "round " + t);
      assertEquals(plain.get(t).get("down_bytes").asLong(), iterations.get(t).get("down_bytes").asLong(), "round " + t);
    }
    // the evaluation after round 29 of the long run is of the model the short run ends with
    assertEquals(iterations.get(29).get("test_accuracy").asDouble(),
        lines(first, "epochs").get(0).get("test_accuracy").asDouble());
  }

  private static Path train(Path output, List<String> flags) {
    List<String> args = new ArrayList<>(RUN);
    args.addAll(flags);
    args.addAll(List.of("--output", output.toString()));
    StringWriter err = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), SPARK.context(), new PrintWriter(new StringWriter(), true),
        new PrintWriter(err, true));
    assertEquals(0, code, err.toString());
    return output;
  }

  private static List<JsonNode> lines(Path run, String file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics/" + file + ".jsonl"))) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }
}
