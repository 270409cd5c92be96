package org.bitopk.job.problem.network;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The built-in data sets, registered here once: their {@code --dataset} name, what the help says of them, the
 * model of their paper setup and whether their training images are augmented. Validation, defaults and
 * {@code --help} all read this list, so a data set is added in one place (plus its reader in the datasets module).
 */
public enum DatasetChoice {
  FASHION_MNIST("fashion-mnist", "Fashion-MNIST IDX files (default location /usr/share/datasets/fashion-mnist)",
      Optional.of(ModelArchitecture.MLP), false),
  MNIST("mnist", "MNIST IDX files (--data required)", Optional.of(ModelArchitecture.MLP_SMALL), false),
  CIFAR10("cifar10", "CIFAR-10 binary batches (--data required; random crop and flip)",
      Optional.of(ModelArchitecture.VGG19_BN), true),
  SYNTHETIC("synthetic", "generated images, synthetic[:n=,test=,classes=,shape=CxHxW,noise=,seed=]",
      Optional.of(ModelArchitecture.MLP), false),
  COUNTEREXAMPLE("counterexample", "Zou's quadratics, one worker per centre, counterexample[:d=,centres=a;b;...,"
      + "start=,noise=], default d = 100, centres 1;5;10", Optional.empty(), false),
  SYNTHETIC_GRADIENTS("synthetic-gradients", "a benchmark problem, not a training problem: generated gradients of one "
      + "pass over d whose TopK supports overlap as set, synthetic-gradients[:d=,overlap=,noise=], default d = "
      + "1000000, overlap 0", Optional.empty(), false);

  private final String cliName;
  private final String help;
  private final Optional<ModelArchitecture> defaultModel;
  private final boolean augments;

  DatasetChoice(String cliName, String help, Optional<ModelArchitecture> defaultModel, boolean augments) {
    this.cliName = cliName;
    this.help = help;
    this.defaultModel = defaultModel;
    this.augments = augments;
  }

  public String cliName() {
    return cliName;
  }

  /** The model of the paper setup when --model is not given; empty when the problem has no network. */
  public Optional<ModelArchitecture> defaultModel() {
    return defaultModel;
  }

  /** Whether training batches are augmented (random crop of the padded image, horizontal flip). */
  public boolean augments() {
    return augments;
  }

  /**
   * The choice a {@code --dataset} text names ({@code synthetic:options} is {@link #SYNTHETIC},
   * {@code counterexample:options} {@link #COUNTEREXAMPLE}, {@code synthetic-gradients:options}
   * {@link #SYNTHETIC_GRADIENTS}).
   *
   * @throws IllegalArgumentException naming the text and every choice
   */
  public static DatasetChoice parse(String text) {
    String name = text.trim();
    for (DatasetChoice d : values()) {
      if (d.cliName.equals(name) || (d.takesOptions() && name.startsWith(d.cliName + ":"))) {
        return d;
      }
    }
    throw new IllegalArgumentException("--dataset: unknown dataset '" + text + "': expected " + names());
  }

  /** Whether the text may carry options after a colon. */
  private boolean takesOptions() {
    return this == SYNTHETIC || this == COUNTEREXAMPLE || this == SYNTHETIC_GRADIENTS;
  }

  /** "fashion-mnist, mnist, cifar10, synthetic[:options], counterexample[:options] or synthetic-gradients[:options]". */
  public static String names() {
    String[] all = Arrays.stream(values())
        .map(d -> d.takesOptions() ? d.cliName + "[:options]" : d.cliName)
        .toArray(String[]::new);
    return String.join(", ", Arrays.copyOf(all, all.length - 1)) + " or " + all[all.length - 1];
  }

  /** For --help: every choice with what it is. */
  public static String help() {
    return Arrays.stream(values()).map(d -> d.cliName + " (" + d.help + ")").collect(Collectors.joining("; "));
  }
}
