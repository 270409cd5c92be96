package org.bitopk.job.output;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSError;
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
 *
 * <p>Who may write here is decided before (see {@link RunDirectoryCheck} and {@link RunLease}); final files are
 * written atomically ({@link AtomicFiles}), so a failure leaves either the complete file or none.
 */
public final class RunDirectory implements RunListener, AutoCloseable {
  public static final String SUCCESS = "_SUCCESS";
  public static final String CONFIG = "config.json";
  public static final String SUMMARY = "summary.txt";
  public static final String METRICS = "metrics";
  public static final String ITERATIONS = "metrics/iterations.jsonl";
  public static final String EPOCHS = "metrics/epochs.jsonl";
  /** The driver's log files of each start of the run (see DriverLog). */
  public static final String LOGS = "logs";
  /** The compensated vectors of {@code --capture-vectors} (written by the capture package). */
  public static final String CAPTURES = "captures";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileSystem fs;
  private final Path path;
  private Writer iterations;
  private Writer epochs;
  private FSDataOutputStream iterationsOut;
  private FSDataOutputStream epochsOut;
  private long iterationLines;
  private MetricLines.Continuation continuation = MetricLines.Continuation.none();

  private RunDirectory(FileSystem fs, Path path) {
    this.fs = fs;
    this.path = path;
  }

  /** Opens the metric files of a new run (the directory exists: its lease was taken). */
  public static RunDirectory start(FileSystem fs, Path path) throws IOException {
    RunDirectory dir = new RunDirectory(fs, path);
    boolean opened = false;
    try {
      fs.mkdirs(new Path(path, METRICS));
      dir.iterations = dir.writer(ITERATIONS);
      dir.epochs = dir.writer(EPOCHS);
      opened = true;
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    } finally {
      if (!opened) {
        dir.discardIfNothingRecorded();
      }
    }
    return dir;
  }

  /**
   * Reopens the directory of an unfinished run to continue run {@code runId} at round {@code fromIteration}:
   * keeps its metric lines of earlier rounds (iterations &lt; fromIteration, epochs ending at or before it),
   * each once, and drops the rest (rounds the resumed run writes again, torn lines, lines of another run).
   * Use {@link #continuation()} to learn what was dropped and which earlier rounds have no line.
   */
  public static RunDirectory resume(FileSystem fs, Path path, String runId, int fromIteration) throws IOException {
    RunDirectory dir = new RunDirectory(fs, path);
    try {
      fs.mkdirs(new Path(path, METRICS));
      MetricLines.Trimmed trimmed = MetricLines.trim(raw(fs), path, runId, fromIteration);
      dir.iterations = dir.reopen(ITERATIONS, trimmed.iterations());
      dir.epochs = dir.reopen(EPOCHS, trimmed.epochs());
      dir.iterationLines = trimmed.iterations().size();
      dir.continuation = trimmed.continuation();
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
    return dir;
  }

  /** For a resumed run: what its metric lines were found to hold. */
  public MetricLines.Continuation continuation() {
    return continuation;
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
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + e.getMessage(), e);
    } catch (FSError e) {
      IOException io = AtomicFiles.unwrap(e);
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + io.getMessage(), io);
    }
  }

  private static void hflush(Writer writer, FSDataOutputStream out) throws IOException {
    writer.flush();
    if (out != null) {
      out.hflush();
    }
  }

  /**
   * Replaces a metrics file by {@code kept} atomically (temporary file + rename), so that a driver dying now
   * still leaves the kept lines; returns a writer appending to it.
   */
  private Writer reopen(String name, List<String> kept) throws IOException {
    Path file = new Path(path, name);
    FileSystem target = raw(fs);
    deleteSideFile(fs, file);
    Path temporary = AtomicFiles.temporaryFor(file);
    boolean replaced = false;
    try {
      try (Writer out = new BufferedWriter(new OutputStreamWriter(target.create(temporary, true), StandardCharsets.UTF_8))) {
        writeLines(out, kept);
      }
      AtomicFiles.replace(target, temporary, file);
      replaced = true;
    } finally {
      if (!replaced) {
        AtomicFiles.deleteQuietly(target, temporary);
      }
    }
    FSDataOutputStream out;
    try {
      out = target.append(file);
    } catch (UnsupportedOperationException | IOException noAppend) {
      // object stores: rewrite (their files only appear when closed anyway)
      Writer writer = writer(name);
      writeLines(writer, kept);
      return writer;
    }
    if (name.equals(ITERATIONS)) {
      iterationsOut = out;
    } else {
      epochsOut = out;
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  private static void writeLines(Writer out, List<String> lines) throws IOException {
    for (String line : lines) {
      out.write(line);
      out.write('\n');
    }
  }

  /** The local file system without its checksum side files; any other file system as it is. */
  static FileSystem raw(FileSystem fs) {
    if (fs instanceof RecordingFileSystem recording) {
      return recording.over(raw(recording.recorded()));
    }
    return fs instanceof ChecksumFileSystem checksummed ? checksummed.getRawFileSystem() : fs;
  }

  /** Deletes the checksum side file of {@code file} where the file system keeps one (the local one). */
  private static void deleteSideFile(FileSystem fs, Path file) throws IOException {
    FileSystem under = fs instanceof RecordingFileSystem recording ? recording.recorded() : fs;
    if (under instanceof ChecksumFileSystem checksummed) {
      fs.delete(checksummed.getChecksumFile(file), false);
    }
  }

  public FileSystem fileSystem() {
    return fs;
  }

  public Path path() {
    return path;
  }

  /** Iteration lines in the metrics so far (kept from before a resume, plus written). */
  public long iterationLines() {
    return iterationLines;
  }

  /** Writes config.json atomically. */
  public void writeConfig(Map<String, Object> config) throws IOException {
    AtomicFiles.write(fs, new Path(path, CONFIG),
        out -> JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValue(new NonClosing(out), config));
  }

  /** Writes a text file atomically. */
  public void writeText(String name, String text) throws IOException {
    AtomicFiles.writeText(fs, new Path(path, name), text);
  }

  /** Writes the empty {@code _SUCCESS} marker: call last, once every other file is complete. */
  public void markSuccess() throws IOException {
    close();
    try {
      fs.create(new Path(path, SUCCESS), true).close();
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
  }

  /**
   * After a failure of a new run that recorded no round: removes what it wrote (config.json, the empty metric
   * files), so the directory is as before and the same command can simply be run again. Logs stay.
   */
  public void discardIfNothingRecorded() {
    closeQuietly();
    if (iterationLines > 0) {
      return;
    }
    for (String name : List.of(CONFIG, METRICS, CAPTURES)) {
      try {
        fs.delete(new Path(path, name), true);
      } catch (IOException | RuntimeException | FSError e) {
        // best effort: what stays is an unfinished run, which the next start reports
      }
    }
  }

  @Override
  public void onIteration(IterationRecord record, DriverState state) {
    line(iterations, record);
    iterationLines++;
    flush(iterations); // each round visible as it ends, to whoever watches the run (the network lab's faults)
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
    try {
      if (iterations != null) {
        Writer w = iterations;
        iterations = null;
        w.close();
      }
      if (epochs != null) {
        Writer w = epochs;
        epochs = null;
        w.close();
      }
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
  }

  /** Closes the metric files, ignoring failures (the run is failing already). */
  public void closeQuietly() {
    for (Writer w : new Writer[] {iterations, epochs}) {
      if (w != null) {
        try {
          w.close();
        } catch (IOException | RuntimeException | FSError e) {
          // already failing with a more useful message
        }
      }
    }
    iterations = null;
    epochs = null;
  }

  /**
   * A metrics file opened for writing. On the local file system it is written through the raw file system,
   * without a checksum side file: a checksummed stream keeps the last partial 512-byte chunk to itself until
   * closed, so lines could not be made durable mid-run (readers skip verification when no .crc exists).
   */
  private Writer writer(String name) throws IOException {
    Path file = new Path(path, name);
    deleteSideFile(fs, file);
    FSDataOutputStream out = raw(fs).create(file, true);
    RecordingFileSystem.growing(fs, file);
    if (name.equals(ITERATIONS)) {
      iterationsOut = out;
    } else if (name.equals(EPOCHS)) {
      epochsOut = out;
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  private void line(Writer writer, Object record) {
    try {
      writer.write(JSON.writeValueAsString(record));
      writer.write('\n');
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + e.getMessage(), e);
    } catch (FSError e) {
      IOException io = AtomicFiles.unwrap(e);
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + io.getMessage(), io);
    }
  }

  private void flush(Writer writer) {
    try {
      writer.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + e.getMessage(), e);
    } catch (FSError e) {
      IOException io = AtomicFiles.unwrap(e);
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + io.getMessage(), io);
    }
  }

  /** Keeps Jackson from closing the stream that {@link AtomicFiles} closes (and checks) itself. */
  private static final class NonClosing extends java.io.FilterOutputStream {
    NonClosing(java.io.OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
