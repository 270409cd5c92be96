package org.bitopk.job.checkpoint;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.AtomicFiles;
import org.bitopk.job.output.DirectoryEntries;
import org.bitopk.job.output.RecordingFileSystem;
import org.bitopk.job.output.WriteRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's checkpoints in {@code <output>/checkpoints/} on any Hadoop FileSystem.
 *
 * <p>Written atomically: the bytes go to a hidden temporary file ({@code _tmp-...}, a name no reader
 * matches), which is renamed to {@code checkpoint-<iteration>.bin} only once complete. Rename is atomic on
 * HDFS and local file systems; on object stores, where it is a copy, the CRC inside the file still rejects a
 * partial one. {@link #latest()} takes the newest checkpoint that decodes intact and skips any other, so a
 * driver killed while writing resumes from the previous checkpoint.
 *
 * <p>Only files with the exact name {@code checkpoint-<10 digits>.bin} whose CRC is intact and whose content
 * is of the iteration in their name count as checkpoints, for resuming and for "the newest {@code keep}" (of
 * the run that writes, see {@link #write}): a damaged file or another run's checkpoint never pushes an intact
 * checkpoint of the run out. Temporary files of a write that failed
 * (full disk) or was killed are removed when the run starts again ({@link #removeTemporaries()}).
 */
public final class CheckpointStore {
  public static final String DIRECTORY = "checkpoints";
  private static final Pattern NAME = Pattern.compile("checkpoint-(\\d{10})\\.bin");
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointStore.class);

  private final FileSystem fs;
  private final Path directory;
  private final int keep;
  /** Files already found intact ("name length mtime") and their run: each file is read for its CRC once. */
  private final Map<String, String> verified = new HashMap<>();

  /** Run before every change (write, delete): throws when the run may no longer write here. */
  private final Runnable beforeChange;

  private CheckpointStore(FileSystem fs, Path directory, int keep, Runnable beforeChange) {
    this.fs = fs;
    this.directory = directory;
    this.keep = keep;
    this.beforeChange = beforeChange;
  }

  /**
   * @param runDirectory the run's output directory
   * @param keep how many of the newest checkpoints to keep (older ones are deleted after each write), >= 1
   */
  public static CheckpointStore in(FileSystem fs, Path runDirectory, int keep) {
    if (keep < 1) {
      throw new IllegalArgumentException("must keep at least one checkpoint, got " + keep);
    }
    return new CheckpointStore(fs, new Path(runDirectory, DIRECTORY), keep, () -> { });
  }

  /**
   * The same store running {@code check} before every checkpoint write and every deletion of an old one (the
   * run's lease check: a run that lost its directory neither writes nor prunes there).
   */
  public CheckpointStore checkedBy(Runnable check) {
    return new CheckpointStore(fs, directory, keep, check);
  }

  public Path directory() {
    return directory;
  }

  /**
   * Writes {@code checkpoint} atomically and returns its path; then prunes the checkpoints of its run beyond
   * the newest {@code keep}.
   */
  public Path write(Checkpoint checkpoint) throws IOException {
    byte[] bytes = CheckpointCodec.encode(checkpoint);
    Path target = pathOf(checkpoint.iteration());
    beforeChange.run();
    try {
      fs.mkdirs(directory);
      AtomicFiles.write(fs, target, out -> out.write(bytes));
      FileStatus written = fs.getFileStatus(target);
      verified.put(key(written), checkpoint.runId());
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
    prune(checkpoint.runId());
    return target;
  }

  /** Removes temporary files of checkpoint writes that failed or were killed; returns how many. */
  public int removeTemporaries() throws IOException {
    return AtomicFiles.removeTemporaries(fs, directory);
  }

  /** The newest intact checkpoint of run {@code runId}; intact checkpoints of other runs are skipped (logged). */
  public Optional<Checkpoint> latest(String runId) throws IOException {
    for (Path path : listNewestFirst()) {
      try {
        Checkpoint c = read(path);
        if (c.runId().equals(runId)) {
          return Optional.of(c);
        }
        LOG.warn("skipping checkpoint {} of another run ({}, this directory's run is {})", path, c.runId(), runId);
      } catch (IllegalArgumentException | IOException damaged) {
        LOG.warn("skipping damaged checkpoint {}: {}", path, damaged.getMessage());
      }
    }
    return Optional.empty();
  }

  /** The newest intact checkpoint, if any; damaged or partial files are skipped (and logged). */
  public Optional<Checkpoint> latest() throws IOException {
    for (Path path : listNewestFirst()) {
      try {
        return Optional.of(read(path));
      } catch (IllegalArgumentException | IOException damaged) {
        LOG.warn("skipping damaged checkpoint {}: {}", path, damaged.getMessage());
      }
    }
    return Optional.empty();
  }

  /**
   * Reads one checkpoint file.
   *
   * @throws IllegalArgumentException if it is damaged, or holds another iteration than its name says
   */
  public Checkpoint read(Path path) throws IOException {
    long length = fs.getFileStatus(path).getLen();
    if (length > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(path + " is too large for a checkpoint (" + length + " bytes)");
    }
    byte[] bytes = new byte[(int) length];
    try (InputStream in = fs.open(path)) {
      int read = in.readNBytes(bytes, 0, bytes.length);
      if (read != bytes.length || in.read() != -1) {
        throw new IllegalArgumentException(path + " changed while being read");
      }
    }
    Checkpoint checkpoint;
    try {
      checkpoint = CheckpointCodec.decode(bytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
    if (checkpoint.iteration() != iterationOf(path)) {
      throw new IllegalArgumentException(path + " holds the checkpoint of iteration " + checkpoint.iteration());
    }
    return checkpoint;
  }

  /** Checkpoint files (complete names only), newest first. */
  public List<Path> listNewestFirst() throws IOException {
    FileStatus[] statuses;
    try {
      statuses = fs.listStatus(directory);
    } catch (FileNotFoundException none) {
      return List.of();
    }
    List<Path> found = new ArrayList<>();
    for (FileStatus status : statuses) {
      if (status.isFile() && NAME.matcher(status.getPath().getName()).matches()) {
        found.add(status.getPath());
      }
    }
    found.sort(Comparator.comparingLong(CheckpointStore::iterationOf).reversed());
    return found;
  }

  static long iterationOf(Path path) {
    Matcher m = NAME.matcher(path.getName());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a checkpoint file name: " + path.getName());
    }
    return Long.parseLong(m.group(1));
  }

  Path pathOf(int iteration) {
    return new Path(directory, String.format("checkpoint-%010d.bin", iteration));
  }

  /**
   * Deletes intact checkpoints of run {@code runId} beyond its newest {@code keep} intact ones. Damaged files
   * and checkpoints of another run count for nothing and stay; so does a file the run's manifest does not
   * record as written (when writing through {@link RecordingFileSystem}).
   */
  private void prune(String runId) throws IOException {
    int intact = 0;
    for (Path path : listNewestFirst()) {
      if (intactRun(path).filter(runId::equals).isEmpty()) {
        continue;
      }
      intact++;
      if (intact > keep && isRecorded(path)) {
        beforeChange.run();
        fs.delete(path, false);
      }
    }
  }

  /** The run of the intact checkpoint at {@code path}; empty when it is damaged. */
  private Optional<String> intactRun(Path path) throws IOException {
    FileStatus status = fs.getFileStatus(path);
    String known = verified.get(key(status));
    if (known != null) {
      return Optional.of(known);
    }
    try {
      String run = read(path).runId();
      verified.put(key(status), run);
      return Optional.of(run);
    } catch (IllegalArgumentException damaged) {
      LOG.warn("{} is damaged and does not count as a checkpoint: {}", path, damaged.getMessage());
      return Optional.empty();
    }
  }

  /** True unless the run's manifest says {@code path} (or its directory) is not what the run wrote. */
  private boolean isRecorded(Path path) throws IOException {
    if (!(fs instanceof RecordingFileSystem recording)) {
      return true;
    }
    WriteRecord manifest = recording.manifest();
    for (Path p : List.of(directory, path)) {
      DirectoryEntries.Entry entry = DirectoryEntries.at(recording.recorded(), p);
      String relative = manifest.relative(p);
      if (entry == null || relative == null || !manifest.matches(relative, entry)) {
        LOG.warn("{} is not recorded as written by this run: not removed", p);
        return false;
      }
    }
    return true;
  }

  private static String key(FileStatus status) {
    return status.getPath().getName() + " " + status.getLen() + " " + status.getModificationTime();
  }
}
