package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A directory is a run only by bitopk's own marks, never by the names of its entries: a user's project with a
 * config.json, checkpoints/ or metrics/ of its own is refused with and without --overwrite and left byte for
 * byte as it was; a run with a user's file added is never cleared; --overwrite removes exactly what bitopk wrote.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForeignFilesTest {
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
  void aProjectWithAConfigJsonOfItsOwnIsNotARun() throws IOException {
    Path project = tmp.resolve("project");
    write(project, "config.json", "{\"lr\": 0.1, \"epochs\": 3}\n");
    write(project, "train.py", "import torch\n");
    write(project, "README.md", "# my project\n");
    assertRefusedAndUntouched(project, "is not empty and holds no run", "config.json", "train.py");
  }

  @Test
  void pyTorchCheckpointsAreNotARun() throws IOException {
    Path project = tmp.resolve("lightning");
    write(project, "checkpoints/epoch=3.ckpt", "not a bitopk checkpoint");
    write(project, "train.py", "import lightning\n");
    write(project, "README.md", "# runs\n");
    assertRefusedAndUntouched(project, "is not empty and holds no run", "checkpoints/", "train.py");
  }

  @Test
  void metricsOfAnotherToolAndASparkOutputAreNotRuns() throws IOException {
    Path metrics = tmp.resolve("tensorboard");
    write(metrics, "metrics/loss.csv", "step,loss\n1,0.5\n");
    assertRefusedAndUntouched(metrics, "is not empty and holds no run", "metrics/");

    // Spark's own output marks success with an empty _SUCCESS as bitopk does: still not a run of bitopk's
    Path sparkOutput = tmp.resolve("parquet");
    write(sparkOutput, "_SUCCESS", "");
    write(sparkOutput, "part-00000.parquet", "PAR1");
    assertRefusedAndUntouched(sparkOutput, "is not empty and holds no run", "_SUCCESS", "part-00000.parquet");
  }

  @Test
  void aFinishedRunWithAUsersNotesIsRefusedAndOverwrittenOnlyWithoutThem() throws IOException {
    Path run = tmp.resolve("finished");
    List<String> args = List.of("--dataset", "counterexample", "--epochs", "20", "--checkpoint-every", "5",
        "--output", run.toString(), "--quiet");
    Cli.run(sc, args).succeeds();
    List<String> runFiles = Cli.files(run);
    assertTrue(runFiles.containsAll(List.of("_SUCCESS", "config.json", "metrics/iterations.jsonl",
        "metrics/epochs.jsonl", "model.json", "summary.txt", "checkpoints/checkpoint-0000000015.bin")),
        runFiles.toString());
    write(run, "NOTES.md", "lr too high?\n");
    write(run, "checkpoints/my-copy.bin", "kept by hand");
    Map<String, byte[]> before = Cli.snapshot(run);
    List<String> overwrite = new ArrayList<>(args);
    overwrite.add("--overwrite");
    for (List<String> attempt : List.of(args, overwrite)) {
      Cli.run(sc, attempt).failsWithOneLine(2, "--output", "holds a run and entries bitopk did not write",
          "NOTES.md", "checkpoints/", "move them out");
      Cli.assertSame(before, Cli.snapshot(run), "a run with a user's files is left as it was");
    }

    // without the user's files the same directory is bitopk's run alone: --overwrite replaces exactly it
    Files.delete(run.resolve("NOTES.md"));
    Files.delete(run.resolve("checkpoints/my-copy.bin"));
    String oldRun = firstLine(run.resolve("summary.txt"));
    Cli.run(sc, overwrite).succeeds();
    assertEquals(runFiles, Cli.files(run), "the same files, of the new run");
    assertFalse(firstLine(run.resolve("summary.txt")).equals(oldRun), "summary.txt is the new run's");
  }

  @Test
  void anUnfinishedRunWithAForeignFileIsNeitherResumedNorCleared() throws IOException {
    Path run = tmp.resolve("unfinished");
    Cli.run(sc, "--dataset", "counterexample", "--epochs", "20", "--checkpoint-every", "5", "--output",
        run.toString(), "--quiet").succeeds();
    Files.delete(run.resolve("_SUCCESS"));   // as if killed before its end: resumable, checkpoints intact
    write(run, "metrics/plot.py", "import matplotlib\n");
    Map<String, byte[]> before = Cli.snapshot(run);
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "holds a run and entries bitopk did not write", "metrics/", "to resume the run");
    Cli.assertSame(before, Cli.snapshot(run), "--resume");
    Cli.run(sc, "--dataset", "counterexample", "--output", run.toString(), "--overwrite", "--quiet")
        .failsWithOneLine(2, "--output", "holds a run and entries bitopk did not write", "metrics/");
    Cli.assertSame(before, Cli.snapshot(run), "--overwrite");
  }

  // ---- helpers

  /** Refused without and with --overwrite, in one line naming {@code named}; not one byte changed. */
  private void assertRefusedAndUntouched(Path dir, String... named) throws IOException {
    Map<String, byte[]> before = Cli.snapshot(dir);
    List<String> args = List.of("--dataset", "counterexample", "--epochs", "2", "--output", dir.toString(),
        "--quiet");
    for (List<String> extra : List.of(List.<String>of(), List.of("--overwrite"))) {
      List<String> attempt = new ArrayList<>(args);
      attempt.addAll(extra);
      Cli.run(sc, attempt).failsWithOneLine(2, named);
      Cli.assertSame(before, Cli.snapshot(dir), dir.getFileName() + " " + extra);
    }
    Cli.run(sc, "--resume", dir.toString(), "--quiet").failsWithOneLine(2, "--resume", dir.toString());
    Cli.assertSame(before, Cli.snapshot(dir), dir.getFileName() + " --resume");
  }

  private static void write(Path dir, String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }

  private static String firstLine(Path file) throws IOException {
    return Files.readAllLines(file).get(0);
  }
}
