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

  private Writer writer(String name) throws IOException {
    FSDataOutputStream out = fs.create(new Path(path, name), true);
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
