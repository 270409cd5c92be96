package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * An --output that cannot be a run's directory says why in one line, exit 2: a symbolic link to nothing, a loop
 * of links and a name longer than a file system takes each get their own reason (not "is ... writable?"), and a
 * directory inside another run's directory (even its metrics/) is refused, that run left as it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutputPathTest {
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
  void aDanglingLinkIsNamedAsSuch() throws IOException {
    Path link = Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("nowhere"));
    refused(link, "--output", "is a symbolic link to " + tmp.resolve("nowhere"), "which does not exist");
    assertFalse(Files.exists(tmp.resolve("nowhere")), "nothing created behind the link");
  }

  @Test
  void aLoopOfLinksIsNamedAsSuch() throws IOException {
    Files.createSymbolicLink(tmp.resolve("loop-a"), tmp.resolve("loop-b"));
    Files.createSymbolicLink(tmp.resolve("loop-b"), tmp.resolve("loop-a"));
    refused(tmp.resolve("loop-a"), "--output", "loop of symbolic links");
    refused(tmp.resolve("loop-a").resolve("run"), "--output", "a directory above it", "loop of symbolic links");
  }

  @Test
  void aNameLongerThanTheFileSystemTakesIsNamedAsSuch() {
    refused(tmp.resolve("r".repeat(300)), "--output", "is 300 bytes long", "at most 255");
  }

  @Test
  void aDirectoryInsideAnotherRunIsRefused() throws IOException {
    Path run = tmp.resolve("finished");
    Cli.run(sc, "--dataset", "counterexample", "--epochs", "5", "--output", run.toString(), "--quiet").succeeds();
    Map<String, byte[]> before = Cli.snapshot(run);
    for (Path inside : List.of(run.resolve("metrics"), run.resolve("sub"), run.resolve("sub/deeper"))) {
      refused(inside, "--output", "is inside the run directory", run.getFileName().toString());
      Cli.assertSame(before, Cli.snapshot(run), "the run around it");
    }
    assertFalse(Files.exists(run.resolve("sub")));
  }

  private void refused(Path output, String... named) {
    String[] expected = new String[named.length];
    System.arraycopy(named, 0, expected, 0, named.length);
    Cli.Outcome outcome = Cli.run(sc, "--dataset", "counterexample", "--epochs", "2", "--output", output.toString(),
        "--quiet").failsWithOneLine(2, expected);
    assertFalse(outcome.err().contains("writable?"), outcome.err());
  }
}
