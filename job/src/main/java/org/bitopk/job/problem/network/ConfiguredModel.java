package org.bitopk.job.problem.network;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;

/**
 * A network of one's own: a DL4J {@code MultiLayerConfiguration} read from a JSON file, or the architecture of
 * a Keras Sequential model (.h5, or the JSON of {@code model.to_json()}), checked by {@link ModelValidation}.
 *
 * <p>It holds the configuration as DL4J's own JSON, gzip-compressed: it travels to the executors inside the
 * task closure of every iteration, and DL4J's JSON is verbose but repetitive (VGG-19: 64 KB, 3 KB gzipped).
 * {@link #flagValue()} records the file name and the configuration itself in {@code config.json}, so that
 * {@code --config} and {@code --resume} rebuild the same network without the original file.
 */
public final class ConfiguredModel implements ModelSpec {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Larger files are not network configurations (VGG-19's JSON is 64 KB). */
  private static final long MAX_FILE_BYTES = 64L << 20;

  private final String file;
  private final byte[] compressedJson;
  private transient MultiLayerConfiguration trainable;

  private ConfiguredModel(String file, MultiLayerConfiguration trainable) {
    this.file = file;
    this.compressedJson = gzip(trainable.toJson());
    this.trainable = trainable;
  }

  /** True for values that name a file rather than a built-in model. */
  static boolean looksLikeFile(String value) {
    String lower = value.toLowerCase(Locale.ROOT);
    return value.contains("/") || lower.endsWith(".json") || lower.endsWith(".h5") || lower.endsWith(".hdf5")
        || lower.endsWith(".keras");
  }

  /**
   * Reads a model file through Hadoop FileSystem: HDF5 content is a Keras model, JSON content a DL4J
   * MultiLayerConfiguration or a Keras architecture.
   *
   * @throws IllegalArgumentException one line starting with {@code --model <uri>}
   */
  public static ConfiguredModel read(String uri, Configuration hadoop) {
    String where = "--model " + uri;
    byte[] bytes;
    try {
      Path path = new Path(uri);
      FileSystem fs = path.getFileSystem(hadoop);
      if (!fs.exists(path)) {
        throw new IllegalArgumentException(where + ": no such file");
      }
      FileStatus status = fs.getFileStatus(path);
      if (status.isDirectory()) {
        throw new IllegalArgumentException(where + ": a directory, expected a model file (.json or .h5)");
      }
      if (status.getLen() > MAX_FILE_BYTES) {
        throw new IllegalArgumentException(where + ": " + status.getLen() + " bytes, too large for a network "
            + "configuration (at most " + MAX_FILE_BYTES + ")");
      }
      try (InputStream in = fs.open(path)) {
        bytes = in.readAllBytes();
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(where + ": cannot read it: " + ModelValidation.firstLine(e.getMessage()));
    }
    if (uri.toLowerCase(Locale.ROOT).endsWith(".keras")) {
      throw new IllegalArgumentException(where + ": the Keras 3 .keras format is not readable by DL4J's Keras "
          + "import; save a Keras 2 model as .h5");
    }
    if (KerasImport.isHdf5(bytes)) {
      return new ConfiguredModel(uri, ModelValidation.checkTrainable(where, fromHdf5(where, bytes)));
    }
    if (uri.toLowerCase(Locale.ROOT).matches(".*\\.(h5|hdf5)$")) {
      throw new IllegalArgumentException(where + ": not an HDF5 file (no HDF5 signature)");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    return new ConfiguredModel(uri, ModelValidation.checkTrainable(where, fromText(where, text)));
  }

  /**
   * The value {@code config.json} recorded, {@code {"file": ..., "configuration": {...}}}; a bare DL4J
   * configuration JSON is accepted too.
   */
  static ConfiguredModel fromRecorded(String json) {
    String where = "--model (inline JSON)";
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + " is not JSON: " + ModelValidation.firstLine(e.getOriginalMessage()));
    }
    String file = "inline";
    String configuration = json;
    if (root != null && root.has("configuration") && !root.has("confs")) {
      file = root.path("file").asText("inline");
      where = "--model " + file + " (as recorded)";
      configuration = root.get("configuration").toString();
    }
    return new ConfiguredModel(file, ModelValidation.checkTrainable(where, fromText(where, configuration)));
  }

  private static MultiLayerConfiguration fromText(String where, String text) {
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + ": not JSON (" + ModelValidation.firstLine(e.getOriginalMessage())
          + ", line " + e.getLocation().getLineNr() + ") and not an HDF5 file; expected a DL4J "
          + "MultiLayerConfiguration JSON or a Keras .h5 model");
    }
    if (root != null && root.isObject() && root.has("class_name") && root.has("config")) {
      String version = root.path("keras_version").asText(null);
      return KerasImport.fromJson(where, text, null, version);
    }
    return ModelValidation.parse(where, text);
  }

  private static MultiLayerConfiguration fromHdf5(String where, byte[] bytes) {
    java.nio.file.Path local = null;
    try {
      // HDF5 reads from a local path only: a copy of the file fetched through Hadoop FileSystem.
      local = Files.createTempFile("bitopk-model-", ".h5");
      Files.write(local, bytes);
      return KerasImport.fromHdf5(where, local);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a temporary copy of " + where, e);
    } finally {
      if (local != null) {
        try {
          Files.deleteIfExists(local);
        } catch (IOException ignored) {
          // a leftover temporary file is harmless
        }
      }
    }
  }

  @Override
  public String displayName() {
    int slash = file.lastIndexOf('/');
    return slash >= 0 ? file.substring(slash + 1) : file;
  }

  /** Where the model came from: the URI given to {@code --model}. */
  public String file() {
    return file;
  }

  /** The configuration as DL4J's JSON, after validation (softmax head, NoOp updater, float32). */
  public String configurationJson() {
    return gunzip(compressedJson);
  }

  @Override
  public MultiLayerConfiguration build(long seed, int channels, int height, int width, int classes) {
    MultiLayerConfiguration conf = trainable().clone();
    for (NeuralNetConfiguration layer : conf.getConfs()) {
      layer.setSeed(seed);
    }
    ModelValidation.checkFits("--model " + file, conf, channels, height, width, classes);
    return conf;
  }

  @Override
  public Object flagValue() {
    ObjectNode value = JSON.createObjectNode();
    value.put("file", file);
    try {
      value.set("configuration", JSON.readTree(configurationJson()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("DL4J wrote unreadable JSON", e);
    }
    return value;
  }

  @Override
  public String toString() {
    return "ConfiguredModel[" + file + "]";
  }

  private synchronized MultiLayerConfiguration trainable() {
    if (trainable == null) {
      // On an executor: the validated JSON, read back as it was written.
      trainable = MultiLayerConfiguration.fromJson(configurationJson());
    }
    return trainable;
  }

  private static byte[] gzip(String text) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(bytes)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static String gunzip(byte[] compressed) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
