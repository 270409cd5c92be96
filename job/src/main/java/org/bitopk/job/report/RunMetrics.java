package org.bitopk.job.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.JsonSyntax;
import org.bitopk.job.config.ConfigFile;

/**
 * Everything a report needs from one run directory: {@code config.json} and the two metrics files of the
 * run-output contract (job/docs/run-output.md), read through Hadoop {@link FileSystem} so a report works on
 * {@code file://}, {@code hdfs://} or any other file system the job can write to.
 */
public final class RunMetrics {

  static final String CONFIG = "config.json";
  static final String ITERATIONS = "metrics/iterations.jsonl";
  static final String EPOCHS = "metrics/epochs.jsonl";
  static final String SUCCESS = "_SUCCESS";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String directory;
  private final ObjectNode config;
  private final MetricTable iterations;
  private final MetricTable epochs;

  private RunMetrics(String directory, ObjectNode config, MetricTable iterations, MetricTable epochs) {
    this.directory = directory;
    this.config = config;
    this.iterations = iterations;
    this.epochs = epochs;
  }

  /** A run assembled from already-parsed parts (tests, or a caller that holds the metrics in memory). */
  public static RunMetrics of(String directory, ObjectNode config, MetricTable iterations, MetricTable epochs) {
    return new RunMetrics(Objects.requireNonNull(directory, "directory"),
        config == null ? JsonNodeFactory.instance.objectNode() : config.deepCopy(),
        Objects.requireNonNull(iterations, "iterations"), Objects.requireNonNull(epochs, "epochs"));
  }

  /**
   * Reads a run directory.
   *
   * @throws IllegalArgumentException when the directory does not exist, or lacks
   *     {@code metrics/iterations.jsonl} or {@code metrics/epochs.jsonl}, or a file does not parse; the
   *     message names the path and what was expected. {@code config.json} is optional (a report of a run
   *     still being written can lack it).
   */
  public static RunMetrics read(String directory, Configuration conf) {
    Objects.requireNonNull(directory, "directory");
    Path dir = new Path(directory);
    try {
      FileSystem fs = dir.getFileSystem(conf);
      if (!fs.exists(dir)) {
        throw new IllegalArgumentException("run directory " + directory + " does not exist");
      }
      if (!fs.getFileStatus(dir).isDirectory()) {
        throw new IllegalArgumentException(directory + " is a file, expected a run directory");
      }
      for (String required : new String[] {ITERATIONS, EPOCHS}) {
        if (!fs.exists(new Path(dir, required))) {
          throw new IllegalArgumentException(directory + " is not a run directory: " + required
              + " is missing (expected the output directory of a train run)");
        }
      }
      Path configPath = new Path(dir, CONFIG);
      ObjectNode config = JsonNodeFactory.instance.objectNode();
      if (fs.exists(configPath)) {
        JsonNode node;
        try (InputStream in = ConfigFile.openEdited(fs, configPath)) {
          node = JSON.readTree(in);
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException(configPath + " is not valid JSON: " + JsonSyntax.describe(e), e);
        }
        if (node == null || !node.isObject()) {
          throw new IllegalArgumentException(configPath + " is not a JSON object");
        }
        config = (ObjectNode) node;
      }
      boolean finished = fs.exists(new Path(dir, SUCCESS));
      MetricTable iterations = MetricTable.parse(new Path(dir, ITERATIONS).toString(),
          readLines(fs, new Path(dir, ITERATIONS), finished));
      MetricTable epochs = MetricTable.parse(new Path(dir, EPOCHS).toString(),
          readLines(fs, new Path(dir, EPOCHS), finished));
      return new RunMetrics(directory, config, iterations, epochs);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read run directory " + directory + ": " + e.getMessage(), e);
    }
  }

  /**
   * Refuses what a report must not draw: a directory that is missing, not a run, or (unless
   * {@code partial}) not finished ({@code _SUCCESS}), or one without a single iteration line yet.
   *
   * @throws IllegalArgumentException naming the directory and what is wrong
   */
  public static void requireDrawable(String directory, Configuration conf, boolean partial) {
    Path dir = new Path(directory);
    try {
      FileSystem fs = dir.getFileSystem(conf);
      if (!fs.exists(dir)) {
        throw new IllegalArgumentException("run directory " + directory + " does not exist");
      }
      if (!fs.getFileStatus(dir).isDirectory()) {
        throw new IllegalArgumentException(directory + " is a file, expected a run directory");
      }
      for (String required : new String[] {ITERATIONS, EPOCHS}) {
        if (!fs.exists(new Path(dir, required))) {
          throw new IllegalArgumentException(directory + " is not a run directory: " + required
              + " is missing (expected the output directory of a train run)");
        }
      }
      if (!partial && !fs.exists(new Path(dir, SUCCESS))) {
        throw new IllegalArgumentException(directory + " holds no finished run (no " + SUCCESS + "): it is "
            + "still running, or was killed or failed; pass --partial to draw what it recorded");
      }
      if (fs.getFileStatus(new Path(dir, ITERATIONS)).getLen() == 0) {
        throw new IllegalArgumentException(directory + " has no metric lines yet (" + ITERATIONS
            + " is empty): nothing to draw");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read run directory " + directory + ": " + e.getMessage(), e);
    }
  }

  /**
   * The file's lines. A run killed while it wrote a line leaves that line torn: the last, without its line end,
   * and not JSON. An unfinished run's torn last line is left out (a resume drops it too); a finished run has
   * none, so there it is an error like any other.
   */
  private static List<String> readLines(FileSystem fs, Path path, boolean finished) throws IOException {
    String text;
    try (InputStream in = fs.open(path)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> lines = new ArrayList<>(text.lines().toList());
    if (!finished && !text.isEmpty() && !text.endsWith("\n") && !isJsonObject(lines.get(lines.size() - 1))) {
      lines.remove(lines.size() - 1);
    }
    return lines;
  }

  private static boolean isJsonObject(String line) {
    try {
      JsonNode node = JSON.readTree(line);
      return node != null && node.isObject();
    } catch (JsonProcessingException e) {
      return false;
    }
  }

  public String directory() {
    return directory;
  }

  /** A copy of {@code config.json}; empty when the run has none. */
  public ObjectNode config() {
    return config.deepCopy();
  }

  public MetricTable iterations() {
    return iterations;
  }

  public MetricTable epochs() {
    return epochs;
  }

  /** The training mode (e.g. bidirectional, unidirectional, dense) from the metrics, else the config. */
  public String mode() {
    String m = iterations.firstText("mode");
    if (m.isEmpty()) {
      m = epochs.firstText("mode");
    }
    return m.isEmpty() ? configText("mode") : m;
  }

  /** Number of workers from the metrics, else the config; 0 when unknown. */
  public int workers() {
    double w = iterations.last("workers");
    if (Double.isNaN(w)) {
      w = epochs.last("workers");
    }
    if (Double.isNaN(w)) {
      JsonNode c = config.get("workers");
      return c != null && c.isNumber() ? c.intValue() : 0;
    }
    return (int) w;
  }

  /** The run's name from the metrics ({@code run} field), else the directory's last path element. */
  public String name() {
    String r = iterations.firstText("run");
    if (r.isEmpty()) {
      r = epochs.firstText("run");
    }
    return r.isEmpty() ? new Path(directory).getName() : r;
  }

  /**
   * The compressor from {@code config.json} (whose keys are the train flags): {@code uplink}, followed by
   * {@code /downlink} when a bidirectional run compresses the downlink with a different compressor; or
   * {@code ""} when the config does not say.
   */
  public String compressor() {
    String up = configText("uplink");
    String down = configText("downlink");
    if (!up.isEmpty() && !down.isEmpty() && !down.equals(up) && "bidirectional".equals(mode())) {
      return up + "/" + down;
    }
    return up;
  }

  /**
   * The label a comparison uses for this run: mode, compressor (unless dense), the schemes when either is not the
   * default ({@code ef21/ef21-p}, {@code artemis/mcm}), and worker count.
   */
  public String label() {
    StringBuilder b = new StringBuilder();
    String mode = mode();
    b.append(mode.isEmpty() ? name() : mode);
    String compressor = compressor();
    if (!compressor.isEmpty() && !"none".equals(compressor) && !"dense".equals(mode)) {
      b.append(' ').append(compressor);
    }
    String feedback = configText("uplink-feedback");
    String scheme = configText("downlink-scheme");
    boolean defaultFeedback = feedback.isEmpty() || feedback.equals("ef14");
    boolean defaultScheme = scheme.isEmpty() || scheme.equals("ef") || scheme.equals("average");
    if (!defaultFeedback || !defaultScheme) {
      b.append(' ').append(defaultFeedback ? "ef14" : feedback).append('/')
          .append(scheme.isEmpty() ? "ef" : scheme);
    }
    int workers = workers();
    if (workers > 0) {
      b.append(" P=").append(workers);
    }
    return b.toString();
  }

  private String configText(String key) {
    JsonNode v = config.get(key);
    return v == null || v.isNull() || v.isContainerNode() ? "" : v.asText();
  }
}
