package org.bitopk.lab.reproduction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DocumentPathsTest {

  /** Absolute local paths relative to the working directory; relative ones and other file systems as given. */
  @Test
  void localAbsolutePathsAreShownRelativeAndOthersAsGiven() {
    String[][] cases = {
        {"/work/runs/thesis-fmnist-mlp-quick", "runs/thesis-fmnist-mlp-quick"}, {"file:///work/runs/tta5", "runs/tta5"},
        {"/data/runs/a", "../data/runs/a"}, {"/work/", "."}, {"runs/a", "runs/a"},
        {"hdfs://namenode/runs/a", "hdfs://namenode/runs/a"}, {"s3a://bucket/runs/a", "s3a://bucket/runs/a"}};
    for (String[] c : cases) {
      assertEquals(c[1], DocumentPaths.shown(c[0], Path.of("/work")), c[0]);
    }
  }

  @Test
  void aCommandLineHasEveryAbsolutePathShownRelativeAndEverythingElseKept() {
    String here = Path.of("").toAbsolutePath().toString();
    assertEquals("experiment --grid job/experiments/x.json --out runs/x --experiments runs/a,runs/b,hdfs://n/c",
        DocumentPaths.commandLine("experiment --grid " + here + "/job/experiments/x.json --out " + here
            + "/runs/x --experiments " + here + "/runs/a," + here + "/runs/b,hdfs://n/c"));
  }
}
