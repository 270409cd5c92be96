package org.bitopk.job.problem.synthetic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The synthetic-gradient problem trained end to end through the command line on local[2]: every round's accounting
 * (coordinates sent per worker, the union the driver aggregates, the server's k) equals what the problem's setting
 * implies, worked out here from d, P, ρ and the overlap.
 */
class SyntheticGradientsSparkTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  @TempDir
  Path dir;

  @ParameterizedTest(name = "overlap {0}, {1}")
  @CsvSource({"0, bidirectional", "0.5, bidirectional", "0.25, unidirectional"})
  void everyRoundSendsKPerWorkerAndTheUnionTheOverlapImplies(double overlap, String mode) throws IOException {
    int d = 40_000;
    int workers = 6;
    double density = 0.005;
    int k = 200;
    int rounds = 8;
    Path run = dir.resolve("run-" + overlap + "-" + mode);
    List<String> args = new java.util.ArrayList<>(List.of("train", "--dataset",
        "synthetic-gradients:d=" + d + ",overlap=" + overlap, "--workers", String.valueOf(workers), "--mode", mode,
        "--density-up", String.valueOf(density), "--epochs", String.valueOf(rounds), "--output", run.toString(),
        "--quiet"));
    if (mode.equals("bidirectional")) {
      args.addAll(List.of("--density-down", String.valueOf(density)));
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args.toArray(String[]::new), SPARK.context(), new PrintWriter(out, true),
        new PrintWriter(err, true));
    assertEquals(0, code, err::toString);
    int shared = (int) Math.round(overlap * k);
    long union = shared + (long) workers * (k - shared);
    List<String> lines = Files.readAllLines(run.resolve("metrics/iterations.jsonl"));
    assertEquals(rounds, lines.size());
    for (String line : lines) {
      JsonNode r = JSON.readTree(line);
      assertEquals(k, r.get("up_target_k").asInt(), line);
      assertEquals(k, r.get("up_achieved_k").asDouble(), line);
      assertEquals((long) workers * k, r.get("up_nnz").asLong(), line);
      assertEquals(union, r.get("agg_nnz").asLong(), line);
      assertTrue(r.get("up_bytes").asLong() > (long) workers * k * Float.BYTES, line);
      long downNnz = r.get("down_nnz").asLong();
      assertEquals(mode.equals("bidirectional") ? k : union, downNnz, line);
    }
    JsonNode resolved = JSON.readTree(run.resolve("config.json").toFile()).path("resolved");
    assertEquals(union, resolved.path("union_per_round").asLong(), resolved.toString());
  }
}
