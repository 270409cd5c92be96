package org.bitopk.datasets;

/**
 * One minibatch in compact form: {@code size()} examples row-major in one {@code float[]} (same layout as
 * {@link LabeledImages}) and their labels. The arrays are fresh for each minibatch and handed over without
 * copying: the consumer may wrap them directly (e.g. in an ND4J array).
 */
public final class Minibatch {
  private final float[] features;
  private final int[] labels;
  private final int featureLength;

  private Minibatch(float[] features, int[] labels, int featureLength) {
    this.features = features;
    this.labels = labels;
    this.featureLength = featureLength;
  }

  /** @throws IllegalArgumentException if {@code features.length != labels.length * featureLength} */
  public static Minibatch of(float[] features, int[] labels, int featureLength) {
    if (features == null || labels == null || featureLength < 1
        || (long) labels.length * featureLength != features.length) {
      throw new IllegalArgumentException("minibatch features.length=" + (features == null ? null : features.length)
          + " must equal labels.length=" + (labels == null ? null : labels.length) + " * featureLength="
          + featureLength);
    }
    return new Minibatch(features, labels, featureLength);
  }

  /** Row-major {@code [size][featureLength]}. */
  public float[] features() {
    return features;
  }

  public int[] labels() {
    return labels;
  }

  public int size() {
    return labels.length;
  }

  public int featureLength() {
    return featureLength;
  }
}
