package org.bitopk.job.output;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Why an output directory cannot be used, beyond "is the parent writable?": a name longer than a file system
 * takes, a symbolic link to nothing, a loop of symbolic links, or a directory inside another run's directory.
 */
public final class OutputPathProblems {
  /** The longest name (in bytes) a Linux file system and HDFS take by default. */
  static final int NAME_MAX = 255;
  private static final int NAME_SHOWN = 24;

  private OutputPathProblems() {}

  /** Why {@code directory} cannot be created, when a reason can be named; checked on the local file system. */
  static Optional<String> whyNotCreated(FileSystem fs, Path directory) {
    for (Path p = fs.makeQualified(directory); p != null && !p.isRoot(); p = p.getParent()) {
      int bytes = p.getName().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > NAME_MAX) {
        String name = p.getName();
        return Optional.of("the name '" + name.substring(0, Math.min(NAME_SHOWN, name.length())) + "…' is "
            + bytes + " bytes long; a file name may have at most " + NAME_MAX);
      }
    }
    for (Path p = fs.makeQualified(directory); p != null && !p.isRoot(); p = p.getParent()) {
      File local = DirectoryEntries.localFile(fs, p);
      if (local == null) {
        return Optional.empty();
      }
      Optional<String> link = brokenLink(local.toPath());
      if (link.isPresent()) {
        return Optional.of((p.equals(fs.makeQualified(directory)) ? "it" : "a directory above it, " + p + ",")
            + " is " + link.get());
      }
    }
    return Optional.empty();
  }

  /** "a symbolic link to T, which does not exist" or "a loop of symbolic links (through T)", if so. */
  private static Optional<String> brokenLink(java.nio.file.Path file) {
    try {
      if (!Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isSymbolicLink()) {
        return Optional.empty();
      }
      java.nio.file.Path target = Files.readSymbolicLink(file);
      try {
        Files.readAttributes(file, BasicFileAttributes.class);
        return Optional.empty();
      } catch (NoSuchFileException dangling) {
        return Optional.of("a symbolic link to " + target + ", which does not exist: create it or choose "
            + "another directory");
      } catch (FileSystemException loop) {
        return Optional.of("a loop of symbolic links (it leads to " + target + ", which leads back): remove the "
            + "link or choose another directory");
      }
    } catch (IOException notThere) {
      return Optional.empty();
    }
  }

  /**
   * The run directory {@code directory} lies in (itself excluded), if any: an ancestor holding a run's
   * config.json, or a manifest that records a run's metrics. An experiment's directory holds runs; it is none.
   */
  static Optional<Path> enclosingRun(FileSystem fs, Path directory) {
    for (Path p = fs.makeQualified(directory).getParent(); p != null; p = p.getParent()) {
      try {
        Path config = new Path(p, RunDirectory.CONFIG);
        DirectoryEntries.Entry entry = DirectoryEntries.at(fs, config);
        if (entry != null && entry.isFile() && RunContents.isRunConfig(RunDirectory.raw(fs), config)) {
          return Optional.of(p);
        }
        DirectoryEntries.Entry manifest = DirectoryEntries.at(fs, new Path(p, RunManifest.FILE));
        if (manifest != null && manifest.isFile()
            && RunManifest.read(fs, p).flatMap(m -> m.entry(RunDirectory.METRICS)).isPresent()) {
          return Optional.of(p);
        }
      } catch (IOException | RuntimeException unreadable) {
        // a directory that cannot be looked into, a manifest bitopk cannot read: not a run of bitopk's
      }
    }
    return Optional.empty();
  }
}
