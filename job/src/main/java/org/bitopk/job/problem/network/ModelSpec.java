package org.bitopk.job.problem.network;

import java.io.Serializable;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;

/**
 * What {@code --model} names: one of the built-in {@link ModelArchitecture}s, or a network of the user's own
 * ({@link ConfiguredModel}: a DL4J configuration file or a Keras .h5 file).
 *
 * <p>Serializable because it travels to the executors inside {@link NetworkObjectiveFactory}, with every task:
 * implementations must stay a few kilobytes.
 */
public interface ModelSpec extends Serializable {

  /** Short name for the metrics and messages: the CLI name of a built-in model, the file name of one's own. */
  String displayName();

  /**
   * The DL4J configuration for images of the given shape: gradients only (NoOp updater), float32, its
   * initialisation drawn from {@code seed}.
   *
   * @throws IllegalArgumentException starting with {@code --model} when the network does not fit the data
   */
  MultiLayerConfiguration build(long seed, int channels, int height, int width, int classes);

  /**
   * The value {@code config.json} records under {@code model}; given back to {@code --model} (as a
   * {@code --config} value) it names the same network.
   */
  Object flagValue();

  /**
   * Parses a {@code --model} value: a built-in name, a configuration file (any Hadoop FileSystem URI; .json
   * for a DL4J MultiLayerConfiguration, .h5 for Keras), or a configuration given inline as JSON text (how
   * {@code config.json} records one's own model).
   *
   * @throws IllegalArgumentException one line naming the value and what was expected
   */
  static ModelSpec parse(String text, Configuration hadoop) {
    String value = text.trim();
    if (value.startsWith("{")) {
      return ConfiguredModel.fromRecorded(value);
    }
    for (ModelArchitecture m : ModelArchitecture.values()) {
      if (m.cliName().equals(value.toLowerCase(Locale.ROOT))) {
        return m;
      }
    }
    if (!ConfiguredModel.looksLikeFile(value)) {
      throw new IllegalArgumentException("--model: unknown model '" + text + "': expected one of "
          + ModelArchitecture.cliNames() + ", or a DL4J configuration file (.json) or Keras file (.h5)");
    }
    return ConfiguredModel.read(value, hadoop);
  }
}
