package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A miniature of {@code time-to-accuracy} with DL4J's ParameterAveragingTrainingMaster, found through this module's
 * {@link SystemFamily} entry (synthetic 28×28 data, 2 workers): its trace is evaluated after whole averagings and
 * its bytes are two dense copies per worker and averaging; with {@code --stop-at-target} it ends at its first
 * evaluation at the target. The defaults include DL4J's masters on this build.
 */
@Tag("spark-api")
class Dl4jMastersComparisonTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark(Dl4jMasters::withNd4jKryo);

  /** The job's miniature's MLP, workers, evaluation interval and target. */
  private static final long D = TimeToAccuracyCommandTest.D;
  private static final int WORKERS = TimeToAccuracyCommandTest.WORKERS;
  private static final int EVAL_EVERY = TimeToAccuracyCommandTest.EVAL_EVERY;
  private static final double TARGET = TimeToAccuracyCommandTest.TARGET;
  private static final int FREQUENCY = 2;

  @TempDir
  static Path tmp;
  static Path out;
  static int exitCode;
  static String console;

  @BeforeAll
  static void runMiniature() {
    out = tmp.resolve("tta");
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    exitCode = Main.execute(new String[] {"time-to-accuracy", "--out", out.toString(),
        "--dataset", "synthetic:n=640,test=200,noise=3", "--systems", "bitopk-bidirectional,patm-" + FREQUENCY,
        "--workers", "" + WORKERS, "--batch-size", "16", "--eval-every", "" + EVAL_EVERY, "--epochs", "2",
        "--target", "" + TARGET, "--lr", "0.05", "--max-seconds", "120", "--warm-up-seconds", "0"},
        SPARK.context(), new PrintWriter(o, true), new PrintWriter(e, true));
    console = o + e.toString();
  }

  @Test
  void parameterAveragingIsEvaluatedAfterWholeAveragingsAndMovesTwoDenseCopiesPerWorkerAndAveraging()
      throws IOException {
    assertEquals(0, exitCode, console);
    List<Map<String, String>> trace = TimeToAccuracyCommandTest.table(out.resolve("trace-patm-" + FREQUENCY
        + ".csv"));
    assertTrue(trace.size() > 2, trace.toString());
    assertEquals("0", trace.get(0).get("rounds"));
    int step = (EVAL_EVERY + FREQUENCY - 1) / FREQUENCY * FREQUENCY;
    assertEquals(step, Long.parseLong(trace.get(1).get("rounds")));
    for (Map<String, String> p : trace) {
      long averagings = Long.parseLong(p.get("rounds")) / FREQUENCY;   // SGD: no updater state to average
      assertEquals(averagings * 4 * D * WORKERS * 2, Long.parseLong(p.get("bytes")), p.toString());
    }
    Map<String, String> row = TimeToAccuracyCommandTest.table(out.resolve("time-to-accuracy.csv")).stream()
        .filter(r -> r.get("system").equals("patm-" + FREQUENCY)).findFirst().orElseThrow();
    assertTrue(row.get("details").contains("d " + D + " + updater state 0"), row.toString());
    Map<String, String> last = trace.get(trace.size() - 1);
    assertEquals(last.get("bytes"), row.get("bytes_total"));
  }

  @Test
  void thisBuildComparesDl4jsMastersByDefault() {
    assertEquals(List.of("bitopk-bidirectional", "bitopk-unidirectional", "bitopk-dense", "single-jvm", "patm-1",
        "patm-5", "patm-20", "shared"), TimeToAccuracyCommand.DEFAULT_SYSTEMS);
  }
}
