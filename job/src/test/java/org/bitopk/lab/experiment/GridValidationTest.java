package org.bitopk.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grid is refused as a whole before any point runs: a point name that is not a single directory name inside
 * --out (which would write a run elsewhere), and a point whose settings only fail against its data (a batch
 * larger than a worker's shard). One line, exit 2, the experiment directory not even created.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GridValidationTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  JavaSparkContext sc;
  @TempDir
  Path tmp;

  @BeforeEach
  void context() {
    sc = SPARK.context();
  }

  @Test
  void aPointNameOutsideTheExperimentDirectoryIsRefused() throws IOException {
    for (String name : List.of("../escape", "/tmp/escape", ".hidden", "a:b", "grid.json")) {
      Path grid = tmp.resolve("grid.json");
      Files.writeString(grid, "{\"base\": {" + ExperimentRunTest.BASE + ", \"epochs\": 1}, \"points\": ["
          + "{\"name\": \"fine\"}, {\"name\": \"" + name + "\", \"lr\": 0.2}]}");
      Path out = tmp.resolve("experiments/out");
      ExperimentRunTest.Outcome outcome = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
      assertOneLine(outcome, "--grid", "point 1", "name '" + name + "'");
      assertFalse(Files.exists(tmp.resolve("experiments")), "nothing written for " + name);
      assertFalse(Files.exists(tmp.resolve("escape")), "nothing written outside --out");
    }
  }

  @Test
  void aPointThatFailsOnlyAgainstItsDataIsRefusedBeforeTheFirstPointRuns() throws IOException {
    Path grid = tmp.resolve("grid.json");
    Files.writeString(grid, "{\"base\": {" + ExperimentRunTest.BASE + ", \"epochs\": 1}, \"points\": ["
        + "{\"name\": \"fine\"}, {\"name\": \"too-large\", \"batch-size\": 500}]}");
    Path out = tmp.resolve("out");
    ExperimentRunTest.Outcome outcome = main("experiment", "--grid", grid.toString(), "--out", out.toString(), "--quiet");
    assertOneLine(outcome, "point too-large", "--batch-size 500", "larger than the smallest worker shard");
    assertFalse(Files.exists(out), "no point ran, the experiment directory is not created");
  }

  /** One command in this JVM. */
  private ExperimentRunTest.Outcome main(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, sc, new PrintWriter(out, true), new PrintWriter(err, true));
    return new ExperimentRunTest.Outcome(code, out.toString(), err.toString());
  }

  private static void assertOneLine(ExperimentRunTest.Outcome outcome, String... named) {
    assertEquals(2, outcome.code(), outcome.err());
    List<String> lines = outcome.err().lines().toList();
    assertEquals(1, lines.size(), outcome.err());
    assertTrue(lines.get(0).startsWith("bitopk: "), outcome.err());
    for (String n : named) {
      assertTrue(lines.get(0).contains(n), n + " in: " + lines.get(0));
    }
    assertTrue(Stream.of("Exception", "\tat ").noneMatch(outcome.err()::contains), outcome.err());
    assertEquals("", outcome.out(), "nothing on stdout");
  }
}
