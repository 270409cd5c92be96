package org.bitopk.job.problem.network;

import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * The network a run trains: what {@code --model} names, read into a {@link ModelSpec}, or the data set's own when it
 * is not given. Apart from the models themselves, which know nothing of how they are chosen.
 */
public final class ModelChoice {
  private ModelChoice() {}

  /**
   * Parses a {@code --model} value: a built-in name, a configuration file (any Hadoop FileSystem URI; .json
   * for a DL4J MultiLayerConfiguration, .h5 for Keras), or a configuration given inline as JSON text (how
   * {@code config.json} records one's own model).
   *
   * @throws IllegalArgumentException one line naming the value and what was expected
   */
  public static ModelSpec parse(String text, Configuration hadoop) {
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

  /** The architecture a dataset's paper setup uses when --model is not given. */
  public static ModelArchitecture defaultFor(@Nullable String dataset) {
    return Optional.ofNullable(dataset).flatMap(d -> DatasetChoice.parse(d).defaultModel())
        .orElse(ModelArchitecture.MLP);
  }
}
