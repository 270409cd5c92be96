package org.bitopk.job.problem.quadratic;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import org.bitopk.job.problem.OptionText;

/**
 * One instance of Zou's quadratic counterexample: dimension d, one worker per centre a_i with
 * f_i(x) = ½‖x − a_i·1‖², F = mean_i f_i, and the generator of the starting point
 * x₀ = start·1 + noise·N(0, 1). The paper's instance is d = 100, centres (1, 5, 10), start 20, noise 1.
 *
 * <p>Texts: {@code counterexample} (the paper's) or {@code counterexample:key=value,...} with keys {@code d},
 * {@code centres} (numbers separated by {@code ;}, e.g. {@code 1;5;10}; negative and repeated values allowed),
 * {@code start} and {@code noise}; a key left out keeps the paper's value. {@link #toString()} gives the
 * canonical text and {@code parse(toString())} equals the original.
 *
 * <p>The optimum is analytic: x* = ā·1 with ā the mean of the centres, and
 * F* = mean_i ½‖x* − a_i·1‖² = ½·d·mean_i (a_i − ā)², both in double from the float centres the workers use.
 */
public final class CounterexampleSetting implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  public static final String NAME = "counterexample";
  /** d ≤ this: the driver, every replica and every residual hold dense float vectors of length d. */
  static final int MAX_DIMENSION = 100_000_000;
  private static final String KEYS = "d, centres, start, noise";

  /** Zou's instance: d = 100, a = (1, 5, 10), x₀ = 20·1 + N(0, 1). */
  public static final CounterexampleSetting PAPER = new CounterexampleSetting(100, new float[] {1f, 5f, 10f}, 20, 1);

  private final int dimension;
  private final float[] centres;
  private final double start;
  private final double noise;

  private CounterexampleSetting(int dimension, float[] centres, double start, double noise) {
    this.dimension = dimension;
    this.centres = centres;
    this.start = start;
    this.noise = noise;
  }

  /**
   * A validated setting.
   *
   * @throws IllegalArgumentException naming the key and what was expected
   */
  public static CounterexampleSetting of(int dimension, float[] centres, double start, double noise) {
    if (dimension < 1 || dimension > MAX_DIMENSION) {
      throw new IllegalArgumentException("d=" + dimension + ", expected an integer in [1, " + MAX_DIMENSION + "]");
    }
    if (centres == null || centres.length == 0) {
      throw new IllegalArgumentException("centres: expected at least one centre");
    }
    for (float a : centres) {
      if (!Float.isFinite(a)) {
        throw new IllegalArgumentException("centres: " + a + " is not a finite float");
      }
    }
    if (!Double.isFinite(start)) {
      throw new IllegalArgumentException("start=" + start + ", expected a finite number");
    }
    if (!(noise >= 0) || Double.isInfinite(noise)) {
      throw new IllegalArgumentException("noise=" + noise + ", expected a finite number >= 0");
    }
    return new CounterexampleSetting(dimension, centres.clone(), start, noise);
  }

  /** Whether a {@code --dataset} text names the counterexample (with or without options). */
  public static boolean names(String text) {
    String t = text == null ? "" : text.trim();
    return t.equals(NAME) || t.startsWith(NAME + ":");
  }

  /**
   * Parses {@code counterexample[:d=…,centres=a;b;…,start=…,noise=…]}.
   *
   * @throws IllegalArgumentException naming the text, the bad key or value and the accepted keys
   */
  public static CounterexampleSetting parse(String text) {
    if (!names(text)) {
      throw new IllegalArgumentException("'" + text + "' is not a counterexample text; expected " + NAME + " or "
          + NAME + ":d=<int>,centres=<a1>;<a2>;...,start=<number>,noise=<number>");
    }
    String trimmed = text.trim();
    int dimension = PAPER.dimension;
    float[] centres = PAPER.centres;
    double start = PAPER.start;
    double noise = PAPER.noise;
    if (trimmed.equals(NAME)) {
      return PAPER;
    }
    for (Map.Entry<String, String> option : OptionText.pairs(text, NAME, KEYS).entrySet()) {
      String key = option.getKey();
      String value = option.getValue();
      try {
        switch (key) {
          case "d" -> dimension = Integer.parseInt(value);
          case "centres" -> centres = parseCentres(text, value);
          case "start" -> start = Double.parseDouble(value);
          case "noise" -> noise = Double.parseDouble(value);
          default -> throw OptionText.unknownKey(text, key, KEYS);
        }
      } catch (NumberFormatException e) {
        throw OptionText.notANumber(text, key, value, e);
      }
    }
    try {
      return of(dimension, centres, start, noise);
    } catch (IllegalArgumentException e) {
      throw OptionText.inText(text, e);
    }
  }

  private static float[] parseCentres(String text, String value) {
    String[] parts = value.split(";", -1);
    float[] out = new float[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i].trim();
      if (p.isEmpty()) {
        throw new IllegalArgumentException("'" + text + "': centres '" + value + "' has an empty entry; expected "
            + "numbers separated by ';', e.g. centres=1;5;10");
      }
      out[i] = Float.parseFloat(p);
    }
    return out;
  }

  /** d. */
  public int dimension() {
    return dimension;
  }

  /** The number of workers P: one per centre. */
  public int workers() {
    return centres.length;
  }

  /** a_i, a copy. */
  public float[] centres() {
    return centres.clone();
  }

  public float centre(int worker) {
    return centres[worker];
  }

  public double start() {
    return start;
  }

  public double noise() {
    return noise;
  }

  /** ā, the mean of the centres in double: x* = ā·1. */
  public double optimumCoordinate() {
    double sum = 0;
    for (float a : centres) {
      sum += a;
    }
    return sum / centres.length;
  }

  /** F* = F(ā·1) = ½·d·mean_i (a_i − ā)²; 6100/9 for the paper's setting. */
  public double optimum() {
    double mean = optimumCoordinate();
    double spread = 0;
    for (float a : centres) {
      spread += (a - mean) * (a - mean);
    }
    return 0.5 * dimension * spread / centres.length;
  }

  /** F(x) = mean_i ½‖x − a_i·1‖², in double. */
  public double objective(float[] x) {
    if (x.length != dimension) {
      throw new IllegalArgumentException("x has " + x.length + " entries, expected d = " + dimension);
    }
    double total = 0;
    for (float a : centres) {
      for (float v : x) {
        double diff = (double) v - a;
        total += 0.5 * diff * diff;
      }
    }
    return total / centres.length;
  }

  /**
   * The generated x₀: {@code java.util.Random(seed)}, then for j = 0, …, d − 1 in order
   * {@code x[j] = (float) (start + noise * random.nextGaussian())} (the sum in double, rounded to float once).
   */
  public float[] initialPoint(long seed) {
    Random random = new Random(seed);
    float[] x = new float[dimension];
    for (int j = 0; j < x.length; j++) {
      x[j] = (float) (start + noise * random.nextGaussian());
    }
    return x;
  }

  /** The canonical text: every key, e.g. {@code counterexample:d=100,centres=1;5;10,start=20,noise=1}. */
  @Override
  public String toString() {
    StringJoiner c = new StringJoiner(";");
    for (float a : centres) {
      c.add(number(a));
    }
    return NAME + ":d=" + dimension + ",centres=" + c + ",start=" + number(start) + ",noise=" + number(noise);
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%d", (long) v) : Double.toString(v);
  }

  private static String number(float v) {
    return v == Math.rint(v) && Math.abs(v) < 1e7 ? String.format(Locale.ROOT, "%d", (long) v) : Float.toString(v);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CounterexampleSetting s && s.dimension == dimension && Arrays.equals(s.centres, centres)
        && Double.compare(s.start, start) == 0 && Double.compare(s.noise, noise) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Integer.hashCode(dimension) + Arrays.hashCode(centres)) + Double.hashCode(start);
  }
}
