package org.bitopk.lab.reproduction;

import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How REPRODUCTION.md names a local directory: relative to the working directory the command ran in (normally the
 * repository's top level), never as the measuring machine's absolute path, which a reader cannot follow. Paths on
 * other file systems ({@code hdfs://…}, {@code s3a://…}) name no machine's disk and are kept as given.
 */
final class DocumentPaths {
  private DocumentPaths() {}

  /** {@code path} relative to {@code workingDirectory} when it is an absolute local path, else as given. */
  static String shown(String path, Path workingDirectory) {
    String local = path;
    if (path.startsWith("file:")) {
      local = URI.create(path).getPath();
      if (local == null) {
        return path;
      }
    }
    if (!local.startsWith("/")) {
      return path;
    }
    String relative = workingDirectory.toAbsolutePath().normalize().relativize(Path.of(local).normalize()).toString();
    return relative.isEmpty() ? "." : relative;
  }

  /** {@link #shown} of the working directory of this process. */
  static String shown(String path) {
    return shown(path, Path.of(""));
  }

  /**
   * A recorded command line with every absolute local path in it shown relative: each whitespace-separated word,
   * and each element of a comma-separated list such as {@code --experiments a,b}.
   */
  static String commandLine(String command) {
    return Arrays.stream(command.split(" ", -1))
        .map(word -> Arrays.stream(word.split(",", -1)).map(DocumentPaths::shown).collect(Collectors.joining(",")))
        .collect(Collectors.joining(" "));
  }
}
