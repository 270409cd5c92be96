package org.bitopk.datasets;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A seeded, learnable stand-in for a real data set, of any size and shape: every class has a prototype image
 * (independent standard normal pixels), and an example is its class prototype plus Gaussian noise of standard
 * deviation {@code noise}, scaled by {@code 1/sqrt(1 + noise²)} so pixels have unit variance like normalised
 * real data. Labels are balanced (example i has label {@code i mod classes} before a seeded shuffle), so the
 * non-IID split behaves as on MNIST.
 *
 * <p>Texts: {@code synthetic} or {@code synthetic:key=value,...} with keys {@code n} (training examples,
 * default 2000), {@code test} (test examples, 500), {@code classes} (10), {@code shape} ({@code CxHxW},
 * 1x28x28), {@code noise} (1.0), {@code seed} (0). {@link #toString()} gives the canonical text and
 * {@code parse(toString())} equals the original.
 */
public final class SyntheticData {
  public static final String NAME = "synthetic";

  private final int trainCount;
  private final int testCount;
  private final int classes;
  private final int channels;
  private final int height;
  private final int width;
  private final double noise;
  private final long seed;

  private SyntheticData(Builder b) {
    this.trainCount = b.trainCount;
    this.testCount = b.testCount;
    this.classes = b.classes;
    this.channels = b.channels;
    this.height = b.height;
    this.width = b.width;
    this.noise = b.noise;
    this.seed = b.seed;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses {@code synthetic[:key=value,...]}.
   *
   * @throws IllegalArgumentException naming the text, the bad key or value and the accepted keys
   */
  public static SyntheticData parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("synthetic data text must not be null");
    }
    String trimmed = text.trim();
    Builder builder = builder();
    if (trimmed.equals(NAME)) {
      return builder.build();
    }
    if (!trimmed.startsWith(NAME + ":")) {
      throw new IllegalArgumentException("'" + text + "' is not a synthetic data text; expected "
          + "synthetic or synthetic:n=<int>,test=<int>,classes=<int>,shape=<C>x<H>x<W>,noise=<float>,seed=<long>");
    }
    for (String item : trimmed.substring(NAME.length() + 1).split(",", -1)) {
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + text + "': '" + item + "' is not key=value");
      }
      String key = item.substring(0, eq).trim();
      String value = item.substring(eq + 1).trim();
      try {
        switch (key) {
          case "n":
            builder.trainCount(Integer.parseInt(value));
            break;
          case "test":
            builder.testCount(Integer.parseInt(value));
            break;
          case "classes":
            builder.classes(Integer.parseInt(value));
            break;
          case "shape":
            String[] dims = value.split("x", -1);
            if (dims.length != 3) {
              throw new IllegalArgumentException("'" + text + "': shape '" + value + "' is not CxHxW, e.g. 1x28x28");
            }
            builder.shape(Integer.parseInt(dims[0]), Integer.parseInt(dims[1]), Integer.parseInt(dims[2]));
            break;
          case "noise":
            builder.noise(Double.parseDouble(value));
            break;
          case "seed":
            builder.seed(Long.parseLong(value));
            break;
          default:
            throw new IllegalArgumentException("'" + text + "': unknown key '" + key
                + "'; expected one of n, test, classes, shape, noise, seed");
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + text + "': value '" + value + "' of key '" + key
            + "' is not a number", e);
      }
    }
    return builder.build();
  }

  public int trainCount() {
    return trainCount;
  }

  public int testCount() {
    return testCount;
  }

  public int classes() {
    return classes;
  }

  public int channels() {
    return channels;
  }

  public int height() {
    return height;
  }

  public int width() {
    return width;
  }

  public double noise() {
    return noise;
  }

  public long seed() {
    return seed;
  }

  /** Generates both parts; the same description always gives the same data. */
  public TrainTest generate() {
    int length = channels * height * width;
    Random prototypeRandom = new Random(Seeds.mix(seed, 0));
    float[][] prototypes = new float[classes][length];
    for (float[] prototype : prototypes) {
      for (int i = 0; i < length; i++) {
        prototype[i] = (float) prototypeRandom.nextGaussian();
      }
    }
    return TrainTest.of(examples(prototypes, trainCount, Seeds.mix(seed, 1)),
        examples(prototypes, testCount, Seeds.mix(seed, 2)));
  }

  private LabeledImages examples(float[][] prototypes, int count, long streamSeed) {
    int length = channels * height * width;
    int[] order = Seeds.permutation(count, Seeds.mix(streamSeed, 0));
    int[] labels = new int[count];
    for (int i = 0; i < count; i++) {
      labels[order[i]] = i % classes;
    }
    float[] features = new float[Math.multiplyExact(count, length)];
    Random random = new Random(Seeds.mix(streamSeed, 1));
    double scale = 1.0 / Math.sqrt(1.0 + noise * noise);
    for (int e = 0; e < count; e++) {
      float[] prototype = prototypes[labels[e]];
      int base = e * length;
      for (int i = 0; i < length; i++) {
        features[base + i] = (float) ((prototype[i] + noise * random.nextGaussian()) * scale);
      }
    }
    return LabeledImages.of(features, labels, channels, height, width, classes);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof SyntheticData)) {
      return false;
    }
    SyntheticData other = (SyntheticData) o;
    return trainCount == other.trainCount && testCount == other.testCount && classes == other.classes
        && channels == other.channels && height == other.height && width == other.width
        && Double.compare(noise, other.noise) == 0 && seed == other.seed;
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  /** The canonical text. */
  @Override
  public String toString() {
    Map<String, String> parts = new LinkedHashMap<>();
    parts.put("n", Integer.toString(trainCount));
    parts.put("test", Integer.toString(testCount));
    parts.put("classes", Integer.toString(classes));
    parts.put("shape", channels + "x" + height + "x" + width);
    parts.put("noise", Double.toString(noise));
    parts.put("seed", Long.toString(seed));
    StringBuilder text = new StringBuilder(NAME).append(':');
    parts.forEach((k, v) -> text.append(k).append('=').append(v).append(','));
    text.setLength(text.length() - 1);
    return text.toString().toLowerCase(Locale.ROOT);
  }

  /** Validating builder; every setter checks its value at once. */
  public static final class Builder {
    private int trainCount = 2000;
    private int testCount = 500;
    private int classes = 10;
    private int channels = 1;
    private int height = 28;
    private int width = 28;
    private double noise = 1.0;
    private long seed = 0;

    private Builder() {}

    public Builder trainCount(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("synthetic training size n=" + n + ", expected >= 1");
      }
      this.trainCount = n;
      return this;
    }

    public Builder testCount(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("synthetic test size test=" + n + ", expected >= 1");
      }
      this.testCount = n;
      return this;
    }

    public Builder classes(int classes) {
      if (classes < 2) {
        throw new IllegalArgumentException("synthetic classes=" + classes + ", expected >= 2");
      }
      this.classes = classes;
      return this;
    }

    public Builder shape(int channels, int height, int width) {
      if (channels < 1 || height < 1 || width < 1 || (long) channels * height * width > 1 << 24) {
        throw new IllegalArgumentException("synthetic shape=" + channels + "x" + height + "x" + width
            + ", expected positive dimensions with at most 16M pixels per example");
      }
      this.channels = channels;
      this.height = height;
      this.width = width;
      return this;
    }

    public Builder noise(double noise) {
      if (!(noise >= 0) || Double.isInfinite(noise)) {
        throw new IllegalArgumentException("synthetic noise=" + noise + ", expected a finite value >= 0");
      }
      this.noise = noise;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** @throws IllegalArgumentException if an example set would not fit in one array */
    public SyntheticData build() {
      long length = (long) channels * height * width;
      if (length * Math.max(trainCount, testCount) > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("synthetic data of " + Math.max(trainCount, testCount)
            + " examples of " + channels + "x" + height + "x" + width + " does not fit in one array");
      }
      return new SyntheticData(this);
    }
  }
}
