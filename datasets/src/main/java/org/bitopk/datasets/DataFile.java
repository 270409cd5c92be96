package org.bitopk.datasets;

import java.io.Closeable;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One data file opened through its Hadoop {@link FileSystem} (so {@code file://}, {@code hdfs://} and
 * {@code s3a://} behave alike), transparently gunzipped (JDK {@link GZIPInputStream}) when its name ends in
 * {@code .gz}. Reads go straight into the caller's array, and every failure names the file and the
 * (decompressed) byte offset reached.
 */
final class DataFile implements Closeable {
  /** Inflater input buffer: the JDK default of 512 bytes makes gunzip several times slower. */
  private static final int GZIP_BUFFER = 1 << 16;

  private final Path path;
  private final InputStream in;
  private final boolean compressed;
  private final long storedLength;
  private long position;

  private DataFile(Path path, InputStream in, boolean compressed, long storedLength) {
    this.path = path;
    this.in = in;
    this.compressed = compressed;
    this.storedLength = storedLength;
  }

  static boolean isCompressed(Path path) {
    return path.getName().endsWith(".gz");
  }

  /** True if the path exists and is a file; I/O failures other than absence propagate (unchecked). */
  static boolean isFile(Path path, Configuration conf) {
    try {
      FileSystem fs = path.getFileSystem(conf);
      return fs.getFileStatus(path).isFile();
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot access " + path + ": " + e.getMessage(), e);
    }
  }

  /** True if the path exists (file or directory). */
  static boolean exists(Path path, Configuration conf) {
    try {
      return path.getFileSystem(conf).exists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot access " + path + ": " + e.getMessage(), e);
    }
  }

  static DataFile open(Path path, Configuration conf) {
    InputStream raw = null;
    try {
      FileSystem fs = path.getFileSystem(conf);
      FileStatus status = fs.getFileStatus(path);
      if (!status.isFile()) {
        throw new IllegalArgumentException(path + " is not a file");
      }
      raw = fs.open(path);
      if (isCompressed(path)) {
        return new DataFile(path, new GZIPInputStream(raw, GZIP_BUFFER), true, status.getLen());
      }
      return new DataFile(path, raw, false, status.getLen());
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException("file not found: " + path, e);
    } catch (ZipException | EOFException e) {
      closeQuietly(raw);
      throw new DatasetFormatException(path + ": not a valid gzip file (" + e.getMessage() + ")", e);
    } catch (IOException e) {
      closeQuietly(raw);
      throw new UncheckedIOException("cannot open " + path + ": " + e.getMessage(), e);
    }
  }

  boolean compressed() {
    return compressed;
  }

  /** Size of the file as stored (compressed size for {@code .gz}). */
  long storedLength() {
    return storedLength;
  }

  /** Decompressed bytes consumed so far: the offset of the next byte. */
  long position() {
    return position;
  }

  /**
   * Reads until {@code length} bytes are in {@code dst} or the data ends; returns how many were read.
   * A corrupt or truncated gzip stream is a {@link DatasetFormatException} naming the offset.
   */
  int readUpTo(byte[] dst, int offset, int length) {
    int done = 0;
    try {
      while (done < length) {
        int n = in.read(dst, offset + done, length - done);
        if (n < 0) {
          break;
        }
        done += n;
        position += n;
      }
      return done;
    } catch (ZipException | EOFException e) {
      throw new DatasetFormatException(path + ": gzip data corrupt or truncated at decompressed byte offset "
          + position + " (" + e.getMessage() + ")", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + " at byte offset " + position + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * Reads up to {@code declared} bytes (the size a header announces) and returns them in an array of the
   * length actually read. The array is not allocated at the declared size up front unless the file can hold
   * it: a corrupt header announcing gigabytes then fails as "truncated" instead of exhausting memory.
   */
  byte[] readDeclared(int declared) {
    long plausible = compressed ? Math.max(1L << 20, storedLength * 8) : storedLength - position;
    byte[] buffer = new byte[(int) Math.max(0, Math.min(declared, plausible))];
    int filled = readUpTo(buffer, 0, buffer.length);
    while (filled == buffer.length && buffer.length < declared) {
      buffer = Arrays.copyOf(buffer, (int) Math.min(declared, Math.max(1L << 20, 2L * buffer.length)));
      filled += readUpTo(buffer, filled, buffer.length - filled);
    }
    return filled == buffer.length ? buffer : Arrays.copyOf(buffer, filled);
  }

  /** True if no byte follows the current position. */
  boolean atEnd() {
    byte[] one = new byte[1];
    return readUpTo(one, 0, 1) == 0;
  }

  /**
   * Reads everything that is left. Uncompressed files are read into an array of exactly their size;
   * gzip streams into a growing one.
   */
  byte[] readRemaining() {
    if (!compressed) {
      long left = storedLength - position;
      if (left > Integer.MAX_VALUE - 8) {
        throw new DatasetFormatException(path + ": " + storedLength + " bytes is too large for one array");
      }
      byte[] all = new byte[(int) left];
      int n = readUpTo(all, 0, all.length);
      if (n != all.length || !atEnd()) {
        throw new UncheckedIOException(new IOException(path + " changed while being read: expected "
            + storedLength + " bytes, read " + position));
      }
      return all;
    }
    byte[] buffer = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(1 << 16, storedLength * 4))];
    int filled = 0;
    while (true) {
      filled += readUpTo(buffer, filled, buffer.length - filled);
      if (filled < buffer.length) {
        return Arrays.copyOf(buffer, filled);
      }
      if (buffer.length >= Integer.MAX_VALUE - 8) {
        throw new DatasetFormatException(path + ": more than " + buffer.length
            + " decompressed bytes, too large for one array");
      }
      buffer = Arrays.copyOf(buffer, (int) Math.min(Integer.MAX_VALUE - 8, 2L * buffer.length));
    }
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + path + ": " + e.getMessage(), e);
    }
  }

  private static void closeQuietly(InputStream in) {
    if (in != null) {
      try {
        in.close();
      } catch (IOException ignored) {
        // already failing with a more useful message
      }
    }
  }

  static int bigEndianInt(byte[] b, int offset) {
    return ((b[offset] & 0xff) << 24) | ((b[offset + 1] & 0xff) << 16) | ((b[offset + 2] & 0xff) << 8)
        | (b[offset + 3] & 0xff);
  }
}
