package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.LocalSpark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run resumes only on the data it was trained on: its config.json records every input file's size and
 * modification time, and a --resume after the CSV was rewritten is refused in one line naming the file, the
 * run left as it was; on the unchanged file the same --resume continues to the end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResumeOnChangedDataTest {
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
  void aResumeAfterTheCsvWasRewrittenIsRefused() throws IOException {
    Path csv = tmp.resolve("table.csv");
    Files.writeString(csv, table(200, 1));
    Path run = tmp.resolve("run");
    Cli.run(sc, "--data", "csv:" + csv, "--label", "label", "--workers", "2", "--batch-size", "10", "--epochs", "2",
        "--checkpoint-every", "7", "--output", run.toString(), "--quiet").succeeds();
    assertTrue(Files.readString(run.resolve("config.json")).contains(csv.toUri().getPath()),
        "config.json records the input file");
    Files.delete(run.resolve("_SUCCESS"));   // as if killed before its end: resumable from its checkpoints
    Map<String, byte[]> before = Cli.snapshot(run);
    String original = Files.readString(csv);
    FileTime modified = Files.getLastModifiedTime(csv);

    Files.writeString(csv, table(201, 2));
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume",
        "the input is not the data the run was trained on", csv.getFileName().toString(), "changed",
        "start a new run");
    Cli.assertSame(before, Cli.snapshot(run), "a refused resume leaves the run as it was");

    // the same bytes with a new time count as changed too (the file was rewritten); the original file resumes
    Files.writeString(csv, original);
    Files.setLastModifiedTime(csv, FileTime.from(Instant.now()));
    Cli.run(sc, "--resume", run.toString(), "--quiet").failsWithOneLine(2, "--resume", "changed");
    Files.setLastModifiedTime(csv, modified);
    Cli.run(sc, "--resume", run.toString(), "--quiet").succeeds();
    assertTrue(Files.exists(run.resolve("_SUCCESS")), Cli.files(run).toString());
  }

  /** A label and four features per row, four classes. */
  private static String table(int rows, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder b = new StringBuilder("label,a,b,c,d\n");
    for (int i = 0; i < rows; i++) {
      int label = i % 4;
      b.append(label);
      for (int j = 0; j < 4; j++) {
        b.append(',').append(label + random.nextDouble());
      }
      b.append('\n');
    }
    return b.toString();
  }
}
