package org.bitopk.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.cli.Main;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.output.RunManifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * experiment --out never replaces a file it did not write: a user's results.md and grid.json, a link under the
 * name of a chart, or its own results.md edited since are refused in one line naming them, and not one byte of
 * the directory changes; its own files of an earlier invocation (recorded, or of a directory written before
 * manifests existed with this grid's grid.json) are replaced as before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExperimentDirectoryTest {
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
  void aUsersResultsAndGridAreNeverReplaced() throws IOException {
    Path out = Files.createDirectories(tmp.resolve("mine"));
    Files.writeString(out.resolve("results.md"), "# my own results\n");
    Files.writeString(out.resolve("grid.json"), "{\"mine\": true}\n");
    Files.createSymbolicLink(out.resolve("compare.png"), Files.writeString(tmp.resolve("poster.png"), "png"));
    assertRefusedAndUntouched(out, "grid.json", "results.md", "compare.png (a symbolic link)");
    assertFalse(Files.exists(out.resolve("lr-0.01")), "no point ran");
  }

  @Test
  void itsOwnFilesAreReplacedButNotOnceEdited() throws IOException {
    Path out = tmp.resolve("own");
    succeeds(out);
    String firstResults = Files.readString(out.resolve("results.md"));
    succeeds(out);   // the same grid again: its own files, recorded in the manifest, are written anew
    assertTrue(Files.readString(out.resolve("results.md")).startsWith(firstResults.lines().findFirst().orElseThrow()));

    Files.writeString(out.resolve("results.md"), "my notes on these results\n", StandardOpenOption.APPEND);
    assertRefusedAndUntouched(out, "results.md");

    // written before manifests existed: this grid's grid.json makes its other files the experiment's
    Files.delete(out.resolve(RunManifest.FILE));
    Files.writeString(out.resolve("results.md"), firstResults);
    succeeds(out);
    assertNotEquals("", Files.readString(out.resolve(RunManifest.FILE)));
  }

  // ---- helpers

  private Path grid() throws IOException {
    Path grid = tmp.resolve("grid-file.json");
    Files.writeString(grid, "{\"name\": \"tiny\", \"base\": {\"dataset\": \"counterexample\", \"epochs\": 5},"
        + " \"points\": [{\"lr\": 0.01}]}");
    return grid;
  }

  private String[] args(Path out) throws IOException {
    return new String[] {"experiment", "--grid", grid().toString(), "--out", out.toString(), "--quiet"};
  }

  private void succeeds(Path out) throws IOException {
    StringWriter err = new StringWriter();
    int code = Main.execute(args(out), sc, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    assertEquals(0, code, err.toString());
  }

  private void assertRefusedAndUntouched(Path out, String... named) throws IOException {
    Map<String, String> before = snapshot(out);
    StringWriter err = new StringWriter();
    StringWriter stdout = new StringWriter();
    int code = Main.execute(args(out), sc, new PrintWriter(stdout, true), new PrintWriter(err, true));
    assertEquals(2, code, err.toString());
    assertEquals(1, err.toString().lines().count(), err.toString());
    assertTrue(err.toString().startsWith("bitopk: --out " ), err.toString());
    for (String n : named) {
      assertTrue(err.toString().contains(n), n + " named: " + err);
    }
    assertEquals(before, snapshot(out), "not one byte of the directory changed");
  }

  /** Every entry under {@code dir}: a file's content, a link's target, "dir" for a directory. */
  private static Map<String, String> snapshot(Path dir) throws IOException {
    Map<String, String> all = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.toList()) {
        String key = dir.relativize(p).toString();
        all.put(key, Files.isSymbolicLink(p) ? "-> " + Files.readSymbolicLink(p)
            : Files.isDirectory(p) ? "dir" : Files.readString(p, java.nio.charset.StandardCharsets.ISO_8859_1));
      }
    }
    return all;
  }
}
