package org.bitopk.job.output;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * The file system a run writes its directory through: every directory and file it creates there, appends to,
 * renames or deletes is recorded in the run's {@link WriteRecord} (its {@link RunManifest}) before it happens (and
 * a file's size once it is closed), so no writer of the run can forget to record what it wrote. Paths outside the
 * run directory pass through unrecorded.
 */
public final class RecordingFileSystem extends FilterFileSystem {
  private final WriteRecord manifest;

  public RecordingFileSystem(FileSystem fs, WriteRecord manifest) {
    super(fs);
    this.manifest = manifest;
    setConf(fs.getConf());
  }

  /** The file system under the recording (for checksum side files and raw writes). */
  public FileSystem recorded() {
    return fs;
  }

  /** The same recording over {@code other} (the raw local file system under a checksummed one). */
  public RecordingFileSystem over(FileSystem other) {
    return other == fs ? this : new RecordingFileSystem(other, manifest);
  }

  /** Where the writes are recorded: the run's manifest. */
  public WriteRecord manifest() {
    return manifest;
  }

  @Override
  public String getScheme() {
    return fs.getScheme();
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    String relative = beforeWriting(f);
    return recordedOnClose(f, relative, fs.create(f, permission, overwrite, bufferSize, replication, blockSize,
        progress));
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
      java.util.EnumSet<org.apache.hadoop.fs.CreateFlag> flags, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    String relative = beforeWriting(f);
    return recordedOnClose(f, relative, fs.createNonRecursive(f, permission, flags, bufferSize, replication,
        blockSize, progress));
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
    String relative = manifest.relative(f);
    if (relative != null && !relative.isEmpty()) {
      manifest.growing(relative);
    }
    return recordedOnClose(f, relative == null || relative.isEmpty() ? null : relative,
        fs.append(f, bufferSize, progress));
  }

  /** When {@code fs} records a run's writes: {@code file}, just created, is one the run appends to. */
  public static void growing(FileSystem fs, Path file) throws IOException {
    if (fs instanceof RecordingFileSystem recording) {
      String relative = recording.manifest.relative(file);
      if (relative != null && !relative.isEmpty()) {
        recording.manifest.growing(relative);
      }
    }
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    recordMissingDirectories(f);
    return fs.mkdirs(f, permission);
  }

  @Override
  public boolean mkdirs(Path f) throws IOException {
    recordMissingDirectories(f);
    return fs.mkdirs(f);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    String from = manifest.relative(src);
    String to = manifest.relative(dst);
    if (to != null && !to.isEmpty()) {
      recordMissingDirectories(dst.getParent());
      if (fs.getFileStatus(src).isFile()) {
        manifest.writing(to);   // recorded before it appears, in case the driver dies right after the rename
      } else {
        manifest.directory(to);
      }
    }
    boolean renamed = fs.rename(src, dst);
    if (renamed && to != null && !to.isEmpty()) {
      if (from != null && !from.isEmpty()) {
        manifest.moved(from, to);
      }
      org.bitopk.job.output.DirectoryEntries.Entry now = org.bitopk.job.output.DirectoryEntries.at(fs, dst);
      if (now != null && now.isFile()) {
        manifest.written(to, now.size());
      }
    } else if (renamed && from != null && !from.isEmpty()) {
      manifest.removed(from);
    }
    return renamed;
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    boolean deleted = fs.delete(f, recursive);
    String relative = manifest.relative(f);
    if (relative != null && !relative.isEmpty() && !fs.exists(f)) {
      manifest.removed(relative);
    }
    return deleted;
  }

  /** Records the file (and the directories above it that do not exist yet) before it is created. */
  private String beforeWriting(Path f) throws IOException {
    String relative = manifest.relative(f);
    if (relative == null || relative.isEmpty()) {
      return null;
    }
    recordMissingDirectories(f.getParent());
    manifest.writing(relative);
    return relative;
  }

  private void recordMissingDirectories(Path dir) throws IOException {
    Deque<String> missing = new ArrayDeque<>();
    for (Path p = dir; p != null; p = p.getParent()) {
      String relative = manifest.relative(p);
      if (relative == null || relative.isEmpty() || fs.exists(p)) {
        break;
      }
      missing.push(relative);
    }
    while (!missing.isEmpty()) {
      manifest.directory(missing.pop());
    }
  }

  private FSDataOutputStream recordedOnClose(Path f, String relative, FSDataOutputStream out) throws IOException {
    if (relative == null) {
      return out;
    }
    return new FSDataOutputStream(new SizeOnClose(out, f, relative), null, out.getPos());
  }

  /** Passes bytes (and hflush/hsync) through; records the file's size once it is closed. */
  private final class SizeOnClose extends OutputStream implements Syncable {
    private final FSDataOutputStream out;
    private final Path file;
    private final String relative;
    private boolean closed;

    SizeOnClose(FSDataOutputStream out, Path file, String relative) {
      this.out = out;
      this.file = file;
      this.relative = relative;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void hflush() throws IOException {
      out.hflush();
    }

    @Override
    public void hsync() throws IOException {
      out.hsync();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      out.close();
      org.bitopk.job.output.DirectoryEntries.Entry written = org.bitopk.job.output.DirectoryEntries.at(fs, file);
      if (written != null && written.isFile()) {
        manifest.written(relative, written.size());
      }
    }
  }
}
