package org.bitopk.lab.reproduction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DocumentPathsTest {

  @Test
  void absoluteLocalPathsAreShownRelativeToTheWorkingDirectory() {
    Path work = Path.of("/work");
    assertEquals("runs/thesis-fmnist-mlp-quick", DocumentPaths.shown("/work/runs/thesis-fmnist-mlp-quick", work));
    assertEquals("runs/tta5", DocumentPaths.shown("file:///work/runs/tta5", work));
    assertEquals("../data/runs/a", DocumentPaths.shown("/data/runs/a", work));
    assertEquals(".", DocumentPaths.shown("/work/", work));
  }

  @Test
  void relativePathsAndOtherFileSystemsAreKeptAsGiven() {
    Path work = Path.of("/work");
    assertEquals("runs/a", DocumentPaths.shown("runs/a", work));
    assertEquals("hdfs://namenode/runs/a", DocumentPaths.shown("hdfs://namenode/runs/a", work));
    assertEquals("s3a://bucket/runs/a", DocumentPaths.shown("s3a://bucket/runs/a", work));
  }

  @Test
  void aCommandLineHasEveryAbsolutePathShownRelativeAndEverythingElseKept() {
    String here = Path.of("").toAbsolutePath().toString();
    assertEquals("experiment --grid job/experiments/x.json --out runs/x --experiments runs/a,runs/b,hdfs://n/c",
        DocumentPaths.commandLine("experiment --grid " + here + "/job/experiments/x.json --out " + here
            + "/runs/x --experiments " + here + "/runs/a," + here + "/runs/b,hdfs://n/c"));
  }
}
