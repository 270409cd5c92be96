package org.bitopk.job.output;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.jspecify.annotations.Nullable;

/**
 * The entries of a directory as they are, links not followed: a symbolic link is a link (whatever it points
 * to, dangling or looping), a FIFO, socket or device is "other". Hadoop's local file system follows links when
 * listing and reports a FIFO as a file (and skips a dangling link), so on the local file system the entries are
 * read through java.nio without following links; elsewhere through {@link FileSystem#getFileLinkStatus}.
 */
public final class DirectoryEntries {
  /** What an entry is, its links not followed. */
  public enum Kind {
    FILE, DIRECTORY, LINK, OTHER;

    /** How messages name it: "a symbolic link", "a FIFO, socket or device". */
    public String describe() {
      return switch (this) {
        case FILE -> "a file";
        case DIRECTORY -> "a directory";
        case LINK -> "a symbolic link";
        case OTHER -> "a FIFO, socket or device";
      };
    }

    /** How a message names an entry of this kind that bitopk did not write: "notes/", "logs (a symbolic link)". */
    String nameInMessages(String name) {
      return switch (this) {
        case FILE -> name;
        case DIRECTORY -> name + "/";
        default -> name + " (" + describe() + ")";
      };
    }
  }

  /** One entry: its path, kind and size in bytes (0 unless a file). */
  public record Entry(Path path, Kind kind, long size) {
    public String name() {
      return path.getName();
    }

    public boolean isFile() {
      return kind == Kind.FILE;
    }

    public boolean isDirectory() {
      return kind == Kind.DIRECTORY;
    }
  }

  private DirectoryEntries() {}

  /** The entries of {@code dir}, sorted by name. */
  public static List<Entry> list(FileSystem fs, Path dir) throws IOException {
    List<Entry> entries = new ArrayList<>();
    File local = localFile(fs, dir);
    if (local != null) {
      try (DirectoryStream<java.nio.file.Path> stream = Files.newDirectoryStream(local.toPath())) {
        for (java.nio.file.Path child : stream) {
          Entry entry = local(new Path(dir, child.getFileName().toString()), child);
          if (entry != null) {
            entries.add(entry);
          }
        }
      } catch (NoSuchFileException gone) {
        throw new FileNotFoundException(dir.toString());
      }
    } else {
      for (FileStatus status : fs.listStatus(dir)) {
        entries.add(of(fs, status.getPath()));
      }
    }
    entries.sort(Comparator.comparing(Entry::name));
    return entries;
  }

  /** The entry at {@code path}, or null when there is none. */
  public static @Nullable Entry at(FileSystem fs, Path path) throws IOException {
    File local = localFile(fs, path);
    if (local != null) {
      return local(path, local.toPath());
    }
    try {
      return of(fs, path);
    } catch (FileNotFoundException none) {
      return null;
    }
  }

  private static Entry local(Path path, java.nio.file.Path file) throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException gone) {
      return null;
    }
    Kind kind = a.isSymbolicLink() ? Kind.LINK : a.isDirectory() ? Kind.DIRECTORY : a.isRegularFile() ? Kind.FILE
        : Kind.OTHER;
    return new Entry(path, kind, kind == Kind.FILE ? a.size() : 0);
  }

  private static Entry of(FileSystem fs, Path path) throws IOException {
    FileStatus status;
    try {
      status = fs.getFileLinkStatus(path);
    } catch (UnsupportedOperationException noLinks) {
      status = fs.getFileStatus(path);
    }
    Kind kind = status.isSymlink() ? Kind.LINK : status.isDirectory() ? Kind.DIRECTORY : Kind.FILE;
    return new Entry(status.getPath(), kind, kind == Kind.FILE ? status.getLen() : 0);
  }

  /** The java.io file behind {@code path} on the local file system, else null. */
  static @Nullable File localFile(FileSystem fs, Path path) {
    String scheme;
    try {
      scheme = fs.getScheme();
    } catch (UnsupportedOperationException unknown) {
      return null;
    }
    return "file".equals(scheme) ? new File(fs.makeQualified(path).toUri()) : null;
  }
}
