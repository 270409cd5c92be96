package org.bitopk.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.bitopk.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs with a known optimum (the counterexample) have no test accuracy: the summary reports F − F* instead,
 * its last value and its mean over the second half of the rounds, from the metric lines.
 */
class ExperimentResultsGapTest {
  @TempDir
  Path tmp;

  @Test
  void theMeanGapOverTheLastHalfIsSummarizedPerRunAndPerMode() throws Exception {
    Files.writeString(tmp.resolve("grid.json"), "{\"name\": \"g\", \"base\": {\"dataset\": \"counterexample\", "
        + "\"epochs\": 5}, \"points\": [{\"name\": \"u\", \"mode\": \"unidirectional\"}, {\"name\": \"b\", "
        + "\"mode\": \"bidirectional\"}]}");
    double[][] gaps = {{9, 8, 7, 6, 5}, {4, 3.5, 2.25, 1, 0.5}};
    String[] names = {"u", "b"};
    String[] modes = {"unidirectional", "bidirectional"};
    for (int r = 0; r < 2; r++) {
      Path run = Files.createDirectories(tmp.resolve(names[r]).resolve("metrics"));
      StringBuilder it = new StringBuilder();
      StringBuilder ep = new StringBuilder();
      for (int t = 0; t < 5; t++) {
        it.append(String.format(Locale.ROOT, "{\"iteration\": %d, \"epoch\": %d, \"mode\": \"%s\", \"workers\": 3, "
            + "\"loss\": 1.0, \"up_bytes\": 10, \"down_bytes\": 5, \"down_bytes_delivered\": 15, \"down_nnz\": 1, "
            + "\"agg_nnz\": 2, \"time_total_ms\": 1.0, \"optimality_gap\": %s}%n", t, t + 1, modes[r], gaps[r][t]));
        ep.append(String.format(Locale.ROOT, "{\"epoch\": %d, \"iteration\": %d, \"mode\": \"%s\", \"workers\": 3, "
            + "\"train_loss\": 1.0, \"test_loss\": 1.0, \"cum_up_bytes\": %d, \"cum_down_bytes\": %d, "
            + "\"cum_down_bytes_delivered\": %d}%n", t + 1, t + 1, modes[r], 10 * (t + 1), 5 * (t + 1), 15 * (t + 1)));
      }
      Files.writeString(run.resolve("iterations.jsonl"), it);
      Files.writeString(run.resolve("epochs.jsonl"), ep);
      Files.writeString(tmp.resolve(names[r]).resolve("config.json"), "{\"dataset\": \"counterexample\", \"mode\": \""
          + modes[r] + "\", \"workers\": 3, \"epochs\": 5}");
      Files.writeString(tmp.resolve(names[r]).resolve("_SUCCESS"), "");
    }
    StringWriter err = new StringWriter();
    int code = Main.execute(new String[] {"experiment", "--summarize", tmp.toString()}, null,
        new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    assertEquals(0, code, err.toString());
    List<String> csv = Files.readAllLines(tmp.resolve("results.csv"));
    List<String> header = List.of(csv.get(0).split(","));
    int mean = header.indexOf("mean_gap_last_half");
    int last = header.indexOf("last_round_gap");
    assertTrue(mean > 0 && last > 0, csv.get(0));
    // rounds 2, 3, 4 of 5 (from floor(5/2))
    assertEquals((7 + 6 + 5) / 3.0, Double.parseDouble(csv.get(1).split(",")[mean]), 1e-12);
    assertEquals((2.25 + 1 + 0.5) / 3.0, Double.parseDouble(csv.get(2).split(",")[mean]), 1e-12);
    assertEquals(0.5, Double.parseDouble(csv.get(2).split(",")[last]));
    String md = Files.readString(tmp.resolve("results.md"));
    assertTrue(md.contains("## Mean F − F* over the last half of the rounds"), md);
    assertTrue(md.contains("| counterexample | 6.0000 | 1.2500 |") || md.contains("| all | 6.0000 | 1.2500 |"), md);
    assertTrue(!md.contains("Final test accuracy"), "no accuracy table without test data: " + md);
    assertTrue(Files.size(tmp.resolve("compare.png")) > 1000 || Files.list(tmp).anyMatch(
        p -> p.getFileName().toString().startsWith("compare")), "a comparison chart");
  }

  @Test
  void theSecondHalfStartsAtHalfTheRoundsRoundedDown() {
    assertEquals(2.0, ExperimentResults.meanOfSecondHalf(new double[] {100, 2}));
    assertEquals(2.5, ExperimentResults.meanOfSecondHalf(new double[] {100, 2, 3}));
    assertTrue(Double.isNaN(ExperimentResults.meanOfSecondHalf(new double[] {1, Double.NaN})));
    assertTrue(Double.isNaN(ExperimentResults.meanOfSecondHalf(new double[0])));
  }
}
