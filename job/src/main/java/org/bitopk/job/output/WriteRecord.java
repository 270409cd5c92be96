package org.bitopk.job.output;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link RecordingFileSystem} notes each write in a run directory before it happens (a run's
 * {@link RunManifest} keeps them), so that the file system knows only these notes and not the manifest's file.
 */
public interface WriteRecord {
  /** {@code path} relative to the recorded directory, "" for the directory itself, null when outside it. */
  @Nullable String relative(Path path);

  /** True when {@code found} is the entry recorded under {@code relative}, still as it was written. */
  boolean matches(String relative, DirectoryEntries.Entry found);

  /** Records a directory about to be created. */
  void directory(String relative) throws IOException;

  /** Records a file about to be created or appended to (its size is unknown until {@link #written}). */
  void writing(String relative) throws IOException;

  /** Records a file the run appends to from now on (any size until {@link #written}, then at least that). */
  void growing(String relative) throws IOException;

  /** Records a file's size once it is written and closed. */
  void written(String relative, long size) throws IOException;

  /** Moves the entry of {@code from} (and of everything under it) to {@code to} after a rename. */
  void moved(String from, String to) throws IOException;

  /** Forgets {@code relative} and everything under it, once removed. */
  void removed(String relative) throws IOException;
}
