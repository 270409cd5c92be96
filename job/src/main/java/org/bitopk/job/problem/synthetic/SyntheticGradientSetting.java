package org.bitopk.job.problem.synthetic;

import java.util.Locale;
import java.util.Map;
import org.bitopk.job.problem.OptionText;

/**
 * The settings of the synthetic-gradient benchmark problem ({@link SyntheticGradientProblem}): its dimension d, the
 * fraction of each worker's k coordinates that every worker shares in a round, and the magnitude of the small
 * entries.
 *
 * <p>Texts: {@code synthetic-gradients} or {@code synthetic-gradients:key=value,...} with keys {@code d} (default
 * 1,000,000), {@code overlap} (in [0, 1], default 0: disjoint supports) and {@code noise} (in [0, 0.5), default
 * 0.001). {@link #toString()} gives the canonical text and {@code parse(toString())} equals the original.
 */
public final class SyntheticGradientSetting {
  public static final String NAME = "synthetic-gradients";
  /** The driver, every replica and every residual hold dense float vectors of length d. */
  static final int MAX_DIMENSION = 100_000_000;
  private static final String KEYS = "d, overlap, noise";

  private final int dimension;
  private final double overlap;
  private final double noise;

  private SyntheticGradientSetting(int dimension, double overlap, double noise) {
    this.dimension = dimension;
    this.overlap = overlap;
    this.noise = noise;
  }

  /**
   * A validated setting.
   *
   * @throws IllegalArgumentException naming the key and what was expected
   */
  public static SyntheticGradientSetting of(int dimension, double overlap, double noise) {
    if (dimension < 1 || dimension > MAX_DIMENSION) {
      throw new IllegalArgumentException("d=" + dimension + ", expected an integer in [1, " + MAX_DIMENSION + "]");
    }
    if (!(overlap >= 0 && overlap <= 1)) {
      throw new IllegalArgumentException("overlap=" + overlap + ", expected a number in [0, 1]");
    }
    if (!(noise >= 0 && noise < 0.5)) {
      throw new IllegalArgumentException("noise=" + noise + ", expected a number in [0, 0.5): the small entries "
          + "must stay below half the large ones");
    }
    return new SyntheticGradientSetting(dimension, overlap, noise);
  }

  /** Whether a {@code --dataset} text names this problem (with or without options). */
  public static boolean names(String text) {
    String t = text == null ? "" : text.trim();
    return t.equals(NAME) || t.startsWith(NAME + ":");
  }

  /**
   * Parses {@code synthetic-gradients[:d=…,overlap=…,noise=…]}.
   *
   * @throws IllegalArgumentException naming the text, the bad key or value and the accepted keys
   */
  public static SyntheticGradientSetting parse(String text) {
    if (!names(text)) {
      throw new IllegalArgumentException("'" + text + "' is not a " + NAME + " text; expected " + NAME + " or "
          + NAME + ":d=<int>,overlap=<0..1>,noise=<number>");
    }
    int dimension = 1_000_000;
    double overlap = 0;
    double noise = 0.001;
    for (Map.Entry<String, String> option : OptionText.pairs(text, NAME, KEYS).entrySet()) {
      String key = option.getKey();
      String value = option.getValue();
      try {
        switch (key) {
          case "d" -> dimension = Integer.parseInt(value);
          case "overlap" -> overlap = Double.parseDouble(value);
          case "noise" -> noise = Double.parseDouble(value);
          default -> throw OptionText.unknownKey(text, key, KEYS);
        }
      } catch (NumberFormatException e) {
        throw OptionText.notANumber(text, key, value, e);
      }
    }
    try {
      return of(dimension, overlap, noise);
    } catch (IllegalArgumentException e) {
      throw OptionText.inText(text, e);
    }
  }

  public int dimension() {
    return dimension;
  }

  /** The fraction of a worker's k coordinates that all workers share in a round. */
  public double overlap() {
    return overlap;
  }

  /** The largest magnitude of the small entries (the large ones are in [1, 2)). */
  public double noise() {
    return noise;
  }

  /** The coordinates all workers share in a round: round(overlap·k). */
  public int sharedCount(int k) {
    return (int) Math.round(overlap * k);
  }

  /** The canonical text with every key, e.g. {@code synthetic-gradients:d=1000000,overlap=0.5,noise=0.001}. */
  @Override
  public String toString() {
    return NAME + ":d=" + dimension + ",overlap=" + number(overlap) + ",noise=" + number(noise);
  }

  private static String number(double v) {
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%d", (long) v) : Double.toString(v);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SyntheticGradientSetting s && s.dimension == dimension
        && Double.compare(s.overlap, overlap) == 0 && Double.compare(s.noise, noise) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Integer.hashCode(dimension) + Double.hashCode(overlap)) + Double.hashCode(noise);
  }
}
