package org.bitopk.job.output;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Files that appear whole or not at all: the bytes go to a hidden temporary name beside the target
 * ({@code _tmp-<name>-<random>}: Hadoop and Spark readers skip names starting with {@code _}), which is renamed
 * to the final name only once written and closed. A failure while writing (a full disk, a lost connection)
 * removes the temporary file and leaves the final name untouched: a truncated {@code model.zip} or
 * {@code report.html} can never pass for a result.
 *
 * <p>The local file system reports a full disk as {@link FSError}, an {@link Error}; it is turned into the
 * {@link IOException} it wraps, so callers handle every file system alike.
 */
public final class AtomicFiles {
  /** Prefix of every temporary file the job writes; {@link #removeTemporaries} removes them. */
  public static final String TEMPORARY_PREFIX = "_tmp-";

  /** Writes the content of one file. */
  @FunctionalInterface
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  private AtomicFiles() {}

  /**
   * Writes {@code file} atomically, replacing an earlier version.
   *
   * @throws IOException naming the file, with the file system's reason (e.g. "No space left on device")
   */
  public static void write(FileSystem fs, Path file, Content content) throws IOException {
    Path target = fs.makeQualified(file);
    Path temporary = temporaryFor(target);
    boolean renamed = false;
    try {
      try (OutputStream out = fs.create(temporary, false)) {
        content.writeTo(out);
      }
      replace(fs, temporary, target);
      renamed = true;
    } catch (FSError e) {
      IOException io = unwrap(e);
      throw new IOException("cannot write " + target + ": " + io.getMessage(), io);
    } catch (IOException e) {
      throw new IOException("cannot write " + target + ": " + e.getMessage(), e);
    } finally {
      if (!renamed) {
        deleteQuietly(fs, temporary);
      }
    }
  }

  /** Writes the text file {@code file} atomically in UTF-8, replacing an earlier version. */
  public static void writeText(FileSystem fs, Path file, String text) throws IOException {
    write(fs, file, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** A fresh temporary name in {@code target}'s directory. */
  public static Path temporaryFor(Path target) {
    return new Path(target.getParent(), TEMPORARY_PREFIX + target.getName() + "-"
        + UUID.randomUUID().toString().substring(0, 8));
  }

  /**
   * Renames {@code source} to {@code target}, replacing it. Local and POSIX file systems replace atomically;
   * HDFS's rename refuses an existing target, so there the old file is deleted first (a reader may then
   * briefly find neither, never a partial one).
   */
  public static void replace(FileSystem fs, Path source, Path target) throws IOException {
    try {
      if (fs.rename(source, target)) {
        return;
      }
      if (fs.exists(target) && fs.delete(target, false) && fs.rename(source, target)) {
        return;
      }
    } catch (FSError e) {
      throw unwrap(e);
    }
    throw new IOException("cannot rename " + source + " to " + target);
  }

  /** Removes the temporary files a failed or killed write left in {@code directory}; returns how many. */
  public static int removeTemporaries(FileSystem fs, Path directory) throws IOException {
    FileStatus[] entries;
    try {
      entries = fs.listStatus(directory);
    } catch (FileNotFoundException none) {
      return 0;
    }
    int removed = 0;
    for (FileStatus status : entries) {
      if (status.getPath().getName().startsWith(TEMPORARY_PREFIX) && fs.delete(status.getPath(), true)) {
        removed++;
      }
    }
    return removed;
  }

  /** The I/O failure inside the local file system's {@link FSError}. */
  public static IOException unwrap(FSError e) {
    Throwable cause = e.getCause();
    if (cause instanceof IOException io) {
      return io;
    }
    return new IOException(cause != null && cause.getMessage() != null ? cause.getMessage() : String.valueOf(e), e);
  }

  static void deleteQuietly(FileSystem fs, Path path) {
    try {
      fs.delete(path, false);
    } catch (IOException | RuntimeException | FSError e) {
      // best effort: the next start removes temporary files (removeTemporaries)
    }
  }
}
