package org.bitopk.job.problem.network;

import java.io.Serializable;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;

/**
 * What {@code --model} names: one of the built-in {@link ModelArchitecture}s, or a network of the user's own
 * ({@link ConfiguredModel}: a DL4J configuration file or a Keras .h5 file); {@link ModelChoice} reads one.
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
}
