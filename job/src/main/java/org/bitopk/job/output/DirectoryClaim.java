package org.bitopk.job.output;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A run taking its output directory: the lease (creating the directory, which proves it writable), then, under
 * the lease, the check that the directory still holds what was seen before, the removal of an old run for
 * {@code --overwrite}, the run's manifest (every later write through the lease's file system is recorded in
 * it) and, for {@code --resume}, the removal of the temporary files of failed writes.
 */
public final class DirectoryClaim {
  private DirectoryClaim() {}

  /**
   * Takes {@code output} for run {@code runId}; {@code seen} is what {@link RunDirectoryCheck#requireUsable}
   * found there.
   *
   * @param warnings receives the one-line warning when a stale lease is taken over
   * @throws OutputDirectoryException when another run holds or changed the directory
   */
  public static RunLease take(FileSystem fs, Path output, String runId, RunDirectoryCheck.State seen,
      boolean overwrite, boolean resume, Consumer<String> warnings) {
    String flag = resume ? "--resume" : "--output";
    RunLease lease;
    try {
      lease = RunLease.acquire(fs, output, runId, warnings);
    } catch (OutputDirectoryException e) {
      throw resume ? OutputDirectoryException.namingFlag(e, flag) : e;
    }
    boolean claimed = false;
    try {
      RunDirectoryCheck.State now = RunDirectoryCheck.inspect(fs, output);
      boolean same = now.kind() == seen.kind()
          || (seen.kind() == RunDirectoryCheck.Kind.ABSENT && now.kind() == RunDirectoryCheck.Kind.EMPTY);
      if (!same) {
        throw new OutputDirectoryException(flag + " " + output + " changed while this run was starting (another "
            + "run wrote into it): look at it and run the command again");
      }
      if (overwrite && (now.kind() == RunDirectoryCheck.Kind.FINISHED
          || now.kind() == RunDirectoryCheck.Kind.UNFINISHED)) {
        RunDirectoryCheck.clear(fs, output);
      }
      lease.recordWritesIn(manifest(fs, output, runId, resume));
      if (resume) {
        FileSystem writing = lease.fileSystem();
        for (Path dir : new Path[] {output, new Path(output, RunDirectory.METRICS),
            new Path(output, RunContents.CHECKPOINTS)}) {
          AtomicFiles.removeTemporaries(writing, dir);
        }
      }
      claimed = true;
      return lease;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + output + ": " + e.getMessage(), e);
    } finally {
      if (!claimed) {
        lease.close();
      }
    }
  }

  /**
   * The manifest a run records its writes in once it holds the directory's lease (and {@code --overwrite}
   * removed the old run): a resumed run keeps its own; otherwise a new one for {@code run}, naming what bitopk
   * wrote there and stays (logs of a start that failed, the files of a run resumed that was written before
   * manifests existed).
   */
  static RunManifest manifest(FileSystem fs, Path dir, String run, boolean resume) throws IOException {
    Optional<RunManifest> existing = RunManifest.read(fs, dir);
    if (resume && existing.isPresent()) {
      return existing.get();
    }
    return RunManifest.naming(fs, dir, run, RunContents.of(fs, dir).own());
  }
}
