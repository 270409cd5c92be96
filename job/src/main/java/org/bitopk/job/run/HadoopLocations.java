package org.bitopk.job.run;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.bitopk.job.BadInputException;

/** The file system of a location a flag names, or one line saying why there is none. */
final class HadoopLocations {
  private HadoopLocations() {}

  /**
   * The file system of {@code path}, or one line saying that there is none for its scheme: unknown to
   * Hadoop, or configured (s3a is, in Hadoop's defaults) but its jars are not on the class path.
   */
  static FileSystem fileSystem(String flag, String uri, Path path, Configuration conf) {
    try {
      return path.getFileSystem(conf);
    } catch (UnsupportedFileSystemException e) {
      throw noFileSystem(flag, uri, path, "", e);
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ClassNotFoundException missing) {
          throw noFileSystem(flag, uri, path, " (" + missing.getMessage() + ")", e);
        }
      }
      throw new BadInputException(flag + " " + uri + ": cannot use this location: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new BadInputException(flag + " " + uri + ": cannot use this location: " + e.getMessage(), e);
    }
  }

  /** {@code path} on {@code fs}; Hadoop's "Wrong FS" (a host the file system does not serve) as one line. */
  static Path qualified(String flag, String uri, FileSystem fs, Path path) {
    try {
      return fs.makeQualified(path);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(flag + " " + uri + ": the " + fs.getScheme() + " file system here is "
          + fs.getUri() + ", which does not serve \"" + path.toUri().getAuthority() + "\"; expected a location "
          + "such as " + new Path(fs.getUri().toString(), path.toUri().getPath()), e);
    }
  }

  private static BadInputException noFileSystem(String flag, String uri, Path path, String detail, Exception e) {
    String scheme = path.toUri().getScheme();
    return new BadInputException(flag + " " + uri + ": no Hadoop FileSystem for scheme \"" + scheme
        + "\" on the class path" + detail + ("s3a".equals(scheme) ? "; s3a needs the hadoop-aws jar and its AWS "
        + "SDK bundle, matching Hadoop 3.3.4" : ""), e);
  }
}
