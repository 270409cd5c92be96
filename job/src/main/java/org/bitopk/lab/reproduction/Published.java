package org.bitopk.lab.reproduction;

import java.util.Map;
import java.util.Optional;

/**
 * The published figures the claims are checked against (Zou et al.'s thesis runs, from the authors' saved runs;
 * the counterexample's independent re-run): final test accuracy in percent after 100 epochs with the learning
 * rate used, the downlink's mean nnz(p)/nnz(a) on the Fashion-MNIST MLP, and the counterexample's mean F − F*
 * over iterations 500–999.
 */
final class Published {
  /** One cell of the accuracy table: final test accuracy (%) and the learning rate it was reached with. */
  record Accuracy(double percent, double lr) {}

  /** The paper's training length for the accuracy tables. */
  static final int EPOCHS = 100;

  private static final Map<String, Accuracy> FMNIST_MLP = Map.of(
      "unidirectional/20", new Accuracy(88.98, 0.08), "bidirectional/20", new Accuracy(88.84, 0.08),
      "dense/20", new Accuracy(88.13, 0.06),
      "unidirectional/50", new Accuracy(88.76, 0.13), "bidirectional/50", new Accuracy(88.64, 0.12),
      "dense/50", new Accuracy(89.64, 0.07),
      "unidirectional/100", new Accuracy(88.55, 0.22), "bidirectional/100", new Accuracy(88.56, 0.22),
      "dense/100", new Accuracy(87.96, 0.08));

  private static final Map<String, Accuracy> FMNIST_CNN = Map.of(
      "unidirectional/20", new Accuracy(90.13, 0.09), "bidirectional/20", new Accuracy(90.35, 0.08),
      "dense/20", new Accuracy(90.48, 0.06),
      "unidirectional/50", new Accuracy(90.59, 0.12), "bidirectional/50", new Accuracy(90.61, 0.11),
      "dense/50", new Accuracy(90.53, 0.07),
      "unidirectional/100", new Accuracy(90.51, 0.14), "bidirectional/100", new Accuracy(90.77, 0.2),
      "dense/100", new Accuracy(90.08, 0.08));

  /** FMNIST MLP, bidirectional: workers to the mean nnz(downlink)/nnz(aggregate). */
  static final Map<Integer, Double> DOWNLINK_RATIO = Map.of(20, 0.051, 50, 0.022, 100, 0.012);

  /** Counterexample, the paper's setting: mean F − F* over iterations 500–999. */
  static final double GAP_UNIDIRECTIONAL = 22.4;
  static final double GAP_BIDIRECTIONAL = 14.3;
  /** Over ten noise seeds. */
  static final String GAP_SEED_RANGE = "22.1–23.3 unidirectional vs 14.6–17.2 bidirectional over ten noise seeds";

  private Published() {}

  /** The published cell for a model ({@code mlp} or {@code cnn-bn}), mode and P; empty when the paper has none. */
  static Optional<Accuracy> accuracy(String model, String mode, int workers) {
    Map<String, Accuracy> table = switch (model) {
      case "mlp" -> FMNIST_MLP;
      case "cnn-bn" -> FMNIST_CNN;
      default -> Map.of();
    };
    return Optional.ofNullable(table.get(mode + "/" + workers));
  }
}
