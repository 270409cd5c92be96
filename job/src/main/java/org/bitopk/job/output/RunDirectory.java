package org.bitopk.job.output;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.EpochRecord;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.engine.RunSummary;

/**
 * A run's output directory on any Hadoop FileSystem: config.json, metrics/*.jsonl, the model, summary.txt and
 * {@code _SUCCESS} last. As a {@link RunListener} it appends one JSON line per iteration and per epoch.
 */
public final class RunDirectory implements RunListener, AutoCloseable {
  public static final String SUCCESS = "_SUCCESS";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileSystem fs;
  private final Path path;
  private Writer iterations;
  private Writer epochs;
  private FSDataOutputStream iterationsOut;
  private FSDataOutputStream epochsOut;

  private RunDirectory(FileSystem fs, Path path) {
    this.fs = fs;
    this.path = path;
  }

  /**
   * Prepares the directory. A directory holding a finished run ({@code _SUCCESS}) is refused unless
   * {@code overwrite}, in which case it is deleted first.
   *
   * @throws IllegalArgumentException naming the directory when it holds a finished run
   */
  public static RunDirectory create(String uri, boolean overwrite, Configuration conf) throws IOException {
    Path path = new Path(uri);
    FileSystem fs = path.getFileSystem(conf);
    path = fs.makeQualified(path);
    if (fs.exists(new Path(path, SUCCESS))) {
      if (!overwrite) {
        throw new IllegalArgumentException("--output: " + path + " already holds a finished run (_SUCCESS); "
            + "choose another directory or pass --overwrite");
      }
      fs.delete(path, true);
    } else if (fs.exists(path) && !fs.getFileStatus(path).isDirectory()) {
      throw new IllegalArgumentException("--output: " + path + " exists and is not a directory");
    }
    fs.mkdirs(new Path(path, "metrics"));
    RunDirectory dir = new RunDirectory(fs, path);
    dir.iterations = dir.writer("metrics/iterations.jsonl");
    dir.epochs = dir.writer("metrics/epochs.jsonl");
    return dir;
  }

  /**
   * Reopens the directory of an unfinished run to continue it at round {@code fromIteration}: keeps the
   * metric lines of earlier rounds (iterations &lt; fromIteration, epochs ending at or before it) and drops
   * the rest, which the resumed run writes again.
   *
   * @throws IllegalArgumentException naming the directory when it is missing, not a run, or already finished
   */
  public static RunDirectory resume(String uri, int fromIteration, Configuration conf) throws IOException {
    Path path = new Path(uri);
    FileSystem fs = path.getFileSystem(conf);
    path = fs.makeQualified(path);
    requireResumable(fs, path);
    fs.mkdirs(new Path(path, "metrics"));
    RunDirectory dir = new RunDirectory(fs, path);
    dir.iterations = dir.keepLines("metrics/iterations.jsonl", line -> line.path("iteration").asLong() < fromIteration);
    dir.epochs = dir.keepLines("metrics/epochs.jsonl", line -> line.path("iteration").asLong() <= fromIteration);
    return dir;
  }

  /** @throws IllegalArgumentException unless {@code path} holds an unfinished run */
  public static void requireResumable(FileSystem fs, Path path) throws IOException {
    if (!fs.exists(new Path(path, "config.json"))) {
      throw new IllegalArgumentException("--resume: " + path + " is not a run directory (no config.json)");
    }
    if (fs.exists(new Path(path, SUCCESS))) {
      throw new IllegalArgumentException("--resume: " + path + " holds a finished run (_SUCCESS): nothing to resume");
    }
  }

  /**
   * Makes every metric line written so far durable and visible (before a checkpoint: a run resumed from it
   * must find all earlier lines): hflush on distributed file systems; on the local file system the lines
   * are written without Hadoop's checksum side file (see {@link #writer}), so a flush hands them to the OS.
   * Object stores publish a file only when it is closed: there the lines of an unfinished run may lag.
   */
  public void sync() {
    try {
      hflush(iterations, iterationsOut);
      hflush(epochs, epochsOut);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + path, e);
    }
  }

  private static void hflush(Writer writer, FSDataOutputStream out) throws IOException {
    writer.flush();
    out.hflush();
  }

  /** Rewrites a metrics file keeping the lines that pass {@code keep}; returns a writer appending to it. */
  private Writer keepLines(String name, java.util.function.Predicate<com.fasterxml.jackson.databind.JsonNode> keep)
      throws IOException {
    Path file = new Path(path, name);
    java.util.List<String> kept = new java.util.ArrayList<>();
    if (fs.exists(file)) {
      // A crash can leave a local file system's checksum side file behind its data: read the raw bytes (the
      // rewrite below makes both consistent again); torn lines are dropped anyway.
      FileSystem reader = fs instanceof org.apache.hadoop.fs.ChecksumFileSystem checksummed
          ? checksummed.getRawFileSystem() : fs;
      try (java.io.BufferedReader in = new java.io.BufferedReader(
          new java.io.InputStreamReader(reader.open(file), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.isBlank()) {
            continue;
          }
          try {
            if (keep.test(JSON.readTree(line))) {
              kept.add(line);
            }
          } catch (com.fasterxml.jackson.core.JsonProcessingException torn) {
            // a line cut short by a crash: dropped, its round runs again
          }
        }
      }
    }
    // Replace the file atomically (temporary file + rename) so that a driver dying now still leaves the kept
    // lines, then keep appending to it.
    FileSystem target = fs instanceof org.apache.hadoop.fs.ChecksumFileSystem c ? c.getRawFileSystem() : fs;
    if (target != fs) {
      fs.delete(((org.apache.hadoop.fs.ChecksumFileSystem) fs).getChecksumFile(file), false);
    }
    Path temporary = new Path(path, name + ".resume-tmp");
    try (Writer out = new BufferedWriter(new OutputStreamWriter(target.create(temporary, true), StandardCharsets.UTF_8))) {
      for (String line : kept) {
        out.write(line);
        out.write('\n');
      }
    }
    if (target.exists(file) && !(target instanceof org.apache.hadoop.fs.RawLocalFileSystem)) {
      target.delete(file, false);   // HDFS rename does not replace; the local one does, atomically
    }
    if (!target.rename(temporary, file)) {
      throw new IOException("cannot rename " + temporary + " to " + file);
    }
    FSDataOutputStream out;
    try {
      out = target.append(file);
    } catch (UnsupportedOperationException | IOException noAppend) {
      // object stores: rewrite (their files only appear when closed anyway)
      Writer writer = writer(name);
      for (String line : kept) {
        writer.write(line);
        writer.write('\n');
      }
      return writer;
    }
    if (name.startsWith("metrics/iterations")) {
      iterationsOut = out;
    } else {
      epochsOut = out;
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  public FileSystem fileSystem() {
    return fs;
  }

  public Path path() {
    return path;
  }

  public void writeConfig(Map<String, Object> config) throws IOException {
    try (OutputStream out = fs.create(new Path(path, "config.json"), true)) {
      JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValue(out, config);
    }
  }

  public void writeText(String name, String text) throws IOException {
    try (OutputStream out = fs.create(new Path(path, name), true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Writes the empty {@code _SUCCESS} marker: call last. */
  public void markSuccess() throws IOException {
    close();
    fs.create(new Path(path, SUCCESS), true).close();
  }

  @Override
  public void onIteration(IterationRecord record, DriverState state) {
    line(iterations, record);
  }

  @Override
  public void onEpoch(EpochRecord record, DriverState state) {
    line(epochs, record);
    flush(iterations);
    flush(epochs);
  }

  @Override
  public void onFinish(RunSummary summary, DriverState state) {
    flush(iterations);
    flush(epochs);
  }

  @Override
  public void close() throws IOException {
    if (iterations != null) {
      iterations.close();
      iterations = null;
    }
    if (epochs != null) {
      epochs.close();
      epochs = null;
    }
  }

  /**
   * A metrics file opened for writing. On the local file system it is written through the raw file system,
   * without a checksum side file: a checksummed stream keeps the last partial 512-byte chunk to itself until
   * closed, so lines could not be made durable mid-run (readers skip verification when no .crc exists).
   */
  private Writer writer(String name) throws IOException {
    Path file = new Path(path, name);
    FSDataOutputStream out;
    if (fs instanceof org.apache.hadoop.fs.ChecksumFileSystem checksummed) {
      fs.delete(checksummed.getChecksumFile(file), false);
      out = checksummed.getRawFileSystem().create(file, true);
    } else {
      out = fs.create(file, true);
    }
    if (name.startsWith("metrics/iterations")) {
      iterationsOut = out;
    } else if (name.startsWith("metrics/epochs")) {
      epochsOut = out;
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  private static void line(Writer writer, Object record) {
    try {
      writer.write(JSON.writeValueAsString(record));
      writer.write('\n');
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics", e);
    }
  }

  private static void flush(Writer writer) {
    try {
      writer.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics", e);
    }
  }
}
