package org.bitopk.compression;

import java.io.Serializable;
import java.util.Locale;
import java.util.Objects;

/**
 * An immutable, serializable description of a compressor, parsed from command-line text; the driver ships it to
 * the executors, and each worker (and the server) calls {@link #create} for its own stateful instance.
 *
 * <p>Canonical texts: {@code topk}, {@code topk:strict} (only the entries strictly above the k-th largest
 * magnitude: the server rule of Zou's reference scripts, see {@link KRounding}), {@code gaussiank}, {@code sidco-e},
 * {@code sidco-gp}, {@code sidco-gamma-gp}
 * (each SIDCo variant optionally {@code :stages=1|<M>|adaptive}; adaptive is the default and is omitted from the
 * canonical text), {@code dgc}, {@code randomk}, {@code threshold:tau=<float>}, {@code none} (every coordinate:
 * dense), and the unbiased compressors that send their own values: {@code randomk:scaled} (d/k · Random-k,
 * {@link ScaledRandomKCompressor}) and {@code natural} (natural compression, {@link NaturalCompressor}). Parsing ignores case and surrounding blanks; {@code parse(spec.toString()).equals(spec)}.
 */
public final class CompressorSpec implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Stage count meaning "adaptive" (SIDCo's stage controller). */
  static final int ADAPTIVE = 0;
  /** Upper bound for a fixed stage count: more stages than this leave too few survivors to fit anything. */
  static final int MAX_STAGES = 32;

  private static final String CHOICES = "topk (optionally :strict), gaussiank, sidco-e, sidco-gp, sidco-gamma-gp "
      + "(optionally :stages=1|<M>|adaptive), dgc, randomk, threshold:tau=<float>, none; unbiased: randomk:scaled "
      + "(d/k times Random-k), natural (random rounding to powers of two, 9 bits per entry)";

  /** Every compressor text this parser accepts, for help texts and messages. */
  public static String choices() {
    return CHOICES;
  }

  private final String name;
  private final int stages;
  private final float tau;
  /** topk:strict, or randomk:scaled: the one option without a value. */
  private final boolean strict;

  private CompressorSpec(String name, int stages, float tau, boolean strict) {
    this.name = name;
    this.stages = stages;
    this.tau = tau;
    this.strict = strict;
  }

  /**
   * Parses a compressor description.
   *
   * @throws IllegalArgumentException naming the text and the valid choices
   */
  public static CompressorSpec parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("compressor text is null; expected one of: " + CHOICES);
    }
    String trimmed = text.trim().toLowerCase(Locale.ROOT);
    int colon = trimmed.indexOf(':');
    String name = colon < 0 ? trimmed : trimmed.substring(0, colon).trim();
    String options = colon < 0 ? null : trimmed.substring(colon + 1).trim();
    switch (name) {
      case "topk":
        if (options != null && !options.equals("strict")) {
          throw new IllegalArgumentException("compressor '" + text + "': unknown option '" + options
              + "'; expected 'topk' or 'topk:strict'");
        }
        return new CompressorSpec(name, 1, 0f, options != null);
      case "randomk":
        if (options != null && !options.equals("scaled")) {
          throw new IllegalArgumentException("compressor '" + text + "': unknown option '" + options
              + "'; expected 'randomk' or 'randomk:scaled'");
        }
        return new CompressorSpec(name, 1, 0f, options != null);
      case "gaussiank":
      case "dgc":
      case "natural":
      case "none":
        if (options != null) {
          throw new IllegalArgumentException("compressor '" + text + "': '" + name + "' takes no options; expected '"
              + name + "'");
        }
        return new CompressorSpec(name, 1, 0f, false);
      case "sidco-e":
      case "sidco-gp":
      case "sidco-gamma-gp":
        return new CompressorSpec(name, options == null ? ADAPTIVE : parseStages(text, options), 0f, false);
      case "threshold":
        return new CompressorSpec(name, 1, parseTau(text, options), false);
      default:
        throw new IllegalArgumentException("unknown compressor '" + text + "'; expected one of: " + CHOICES);
    }
  }

  private static int parseStages(String text, String options) {
    if (!options.startsWith("stages=")) {
      throw new IllegalArgumentException("compressor '" + text + "': unknown option '" + options
          + "'; expected stages=1|<M>|adaptive");
    }
    String value = options.substring("stages=".length()).trim();
    if (value.equals("adaptive")) {
      return ADAPTIVE;
    }
    try {
      int m = Integer.parseInt(value);
      if (m >= 1 && m <= MAX_STAGES) {
        return m;
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw new IllegalArgumentException("compressor '" + text + "': stages = '" + value
        + "' is invalid; expected an integer in [1, " + MAX_STAGES + "] or 'adaptive'");
  }

  private static float parseTau(String text, String options) {
    if (options == null || !options.startsWith("tau=")) {
      throw new IllegalArgumentException("compressor '" + text + "': threshold needs its value; expected "
          + "threshold:tau=<float>, e.g. threshold:tau=0.001");
    }
    String value = options.substring("tau=".length()).trim();
    float tau;
    try {
      tau = Float.parseFloat(value);
    } catch (NumberFormatException e) {
      tau = Float.NaN;
    }
    if (!(tau >= 0f && tau < Float.POSITIVE_INFINITY) || value.endsWith("f") || value.endsWith("d")) {
      throw new IllegalArgumentException("compressor '" + text + "': tau = '" + value
          + "' is invalid; expected a finite number >= 0");
    }
    return tau == 0f ? 0f : tau; // -0.0 and 0.0 are the same threshold
  }

  /** A new compressor instance; {@code seed} drives the random choices of randomk, natural and dgc. */
  public Compressor create(long seed) {
    switch (name) {
      case "topk":
        return new TopKCompressor(strict);
      case "randomk":
        return strict ? new ScaledRandomKCompressor(seed) : new RandomKCompressor(seed);
      case "natural":
        return new NaturalCompressor(seed);
      case "threshold":
        return new ThresholdCompressor(tau);
      case "none":
        return new DenseCompressor();
      case "gaussiank":
        return new GaussianKCompressor();
      case "dgc":
        return new DgcCompressor(seed);
      case "sidco-e":
        return new SidcoCompressor(SidcoCompressor.Estimator.EXPONENTIAL, stages);
      case "sidco-gp":
        return new SidcoCompressor(SidcoCompressor.Estimator.GENERALIZED_PARETO, stages);
      case "sidco-gamma-gp":
        return new SidcoCompressor(SidcoCompressor.Estimator.GAMMA_THEN_GP, stages);
      default:
        throw new AssertionError(name);
    }
  }

  /** The compressor's name without options, e.g. {@code sidco-e}. */
  public String name() {
    return name;
  }

  /** SIDCo stage count: 0 for adaptive, otherwise the fixed count; 1 for compressors without stages. */
  public int stages() {
    return stages;
  }

  /** Whether {@code topk} keeps only the entries strictly above the k-th largest magnitude. */
  public boolean strict() {
    return strict && name.equals("topk");
  }

  /**
   * Whether the compressor sends values other than the input's own (randomk:scaled, natural): unbiased, E[C(x)] = x,
   * and its residual under error feedback is {@code c - sent} rather than 0 at the sent coordinates.
   */
  public boolean unbiased() {
    return name.equals("natural") || (strict && name.equals("randomk"));
  }

  /** The fixed threshold of {@code threshold}, 0 for the others. */
  public float tau() {
    return tau;
  }

  /** The canonical text, which {@link #parse} maps back to an equal spec. */
  @Override
  public String toString() {
    if (name.equals("threshold")) {
      return "threshold:tau=" + tau;
    }
    if (strict) {
      return name.equals("randomk") ? "randomk:scaled" : "topk:strict";
    }
    if (name.startsWith("sidco") && stages != ADAPTIVE) {
      return name + ":stages=" + stages;
    }
    return name;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CompressorSpec)) {
      return false;
    }
    CompressorSpec other = (CompressorSpec) o;
    return name.equals(other.name) && stages == other.stages && Float.compare(tau, other.tau) == 0
        && strict == other.strict;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, stages, tau, strict);
  }
}
