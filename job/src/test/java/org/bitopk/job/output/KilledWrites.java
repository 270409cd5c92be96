package org.bitopk.job.output;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** What a driver killed in the middle of a write leaves, for tests that plant such files by hand. */
public final class KilledWrites {
  private KilledWrites() {}

  /**
   * Records {@code relative} in the run's manifest as a write under way, as the run's file system does before
   * it creates the file: a file planted there afterwards is then what a killed write left.
   */
  public static void recordedAsWriting(java.nio.file.Path run, String relative) throws IOException {
    FileSystem local = FileSystem.getLocal(new Configuration());
    RunManifest.read(local, new Path(run.toUri())).orElseThrow().writing(relative);
  }
}
