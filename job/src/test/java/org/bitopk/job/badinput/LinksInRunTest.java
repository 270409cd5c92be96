package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A finished run whose logs/ or checkpoints/ was replaced by a symbolic link to a shared directory, or whose
 * metric file is a FIFO: --overwrite never follows the link nor opens the FIFO; it refuses in one line naming
 * the entry, and the link's target and the run are left byte for byte as they were.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LinksInRunTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  JavaSparkContext sc;
  @TempDir
  Path tmp;

  @BeforeAll
  void start() {
    sc = SPARK.context();
  }

  @Test
  void aLogsDirectoryLinkedToASharedDirectoryIsNeverEmptied() throws IOException {
    Path run = finishedRun("logs-linked");
    Path shared = Files.createDirectories(tmp.resolve("shared-logs"));
    Files.writeString(shared.resolve("driver-20240101-000000.log"), "another run's log\n");
    Files.writeString(shared.resolve("other-team.log"), "theirs\n");
    Files.createSymbolicLink(run.resolve("logs"), shared);
    assertRefusedAndUntouched(run, shared, "logs (a symbolic link)");
  }

  @Test
  void aCheckpointsDirectoryLinkedToAnotherRunsCheckpointsIsNeverEmptied() throws IOException {
    Path other = finishedRun("other");
    Path run = finishedRun("checkpoints-linked");
    Path own = run.resolve("checkpoints");
    try (var files = Files.list(own)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(own);
    Files.createSymbolicLink(own, other.resolve("checkpoints"));
    assertRefusedAndUntouched(run, other, "checkpoints (a symbolic link)");
  }

  @Test
  void aLinkedFileIsNeitherFollowedNorRemoved() throws IOException {
    Path run = finishedRun("model-linked");
    Path mine = Files.writeString(tmp.resolve("my-model.json"), "{\"mine\": true}\n");
    Files.delete(run.resolve("model.json"));
    Files.createSymbolicLink(run.resolve("model.json"), mine);
    assertRefusedAndUntouched(run, tmp.resolve("none"), "model.json (a symbolic link)");
    assertEquals("{\"mine\": true}\n", Files.readString(mine));
  }

  @Test
  void aFifoInPlaceOfAMetricFileIsRefusedWithoutBeingOpened() throws Exception {
    Path run = finishedRun("fifo");
    Path metrics = run.resolve("metrics/iterations.jsonl");
    Files.delete(metrics);
    Process mkfifo = new ProcessBuilder("mkfifo", metrics.toString()).inheritIO().start();
    assertEquals(0, mkfifo.waitFor(), "mkfifo");
    // opening the FIFO would block until a writer comes: the refusal must come without one
    assertTimeoutPreemptively(Duration.ofMinutes(2), () -> assertRefusedAndUntouched(run, tmp.resolve("none"),
        "metrics/"));
  }

  // ---- helpers

  private Path finishedRun(String name) {
    Path run = tmp.resolve(name);
    Cli.run(sc, args(run)).succeeds();
    return run;
  }

  private static List<String> args(Path run) {
    return List.of("--dataset", "counterexample", "--epochs", "10", "--checkpoint-every", "5", "--output",
        run.toString(), "--quiet");
  }

  /** --overwrite (and a plain start) refused in one line naming {@code named}; {@code run} and {@code target} as they were. */
  private void assertRefusedAndUntouched(Path run, Path target, String... named) throws IOException {
    Map<String, byte[]> runBefore = Cli.snapshot(run);
    Map<String, byte[]> targetBefore = Cli.snapshot(target);
    List<String> overwrite = new ArrayList<>(args(run));
    overwrite.add("--overwrite");
    for (List<String> attempt : List.of(overwrite, args(run))) {
      Cli.run(sc, attempt).failsWithOneLine(2, named);
      Cli.assertSame(runBefore, Cli.snapshot(run), "the run");
      Cli.assertSame(targetBefore, Cli.snapshot(target), "the link's target");
    }
  }
}
