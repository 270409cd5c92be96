package org.bitopk.datasets;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Maps a table's labels to class indices {@code 0 .. numClasses-1}: numeric labels are the indices
 * themselves (integers from 0, at most {@value #MAX_CLASSES} classes); string labels are indexed
 * in sorted (String natural) order, so the same set of names always gives the same indices, whatever order
 * the rows come in. The names are recorded with the run.
 */
public final class LabelIndex implements Serializable {
  /** More classes than this: the column is not a class label (or the model's output layer would not fit). */
  public static final int MAX_CLASSES = 65_536;
  private static final long serialVersionUID = 1L;

  private final int numClasses;
  private final String[] names;

  private LabelIndex(int numClasses, String[] names) {
    this.numClasses = numClasses;
    this.names = names;
  }

  /** Numeric labels {@code 0 .. numClasses-1}. */
  public static LabelIndex numeric(int numClasses) {
    if (numClasses < 1 || numClasses > MAX_CLASSES) {
      throw new IllegalArgumentException("numClasses must be in [1, " + MAX_CLASSES + "], got "
          + numClasses);
    }
    return new LabelIndex(numClasses, null);
  }

  /** String labels; {@code names} in any order, without duplicates. */
  public static LabelIndex names(List<String> names) {
    String[] sorted = names.toArray(String[]::new);
    Arrays.sort(sorted);
    if (sorted.length == 0 || sorted.length > MAX_CLASSES) {
      throw new IllegalArgumentException("need 1 to " + MAX_CLASSES + " class names, got "
          + sorted.length);
    }
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i].equals(sorted[i - 1])) {
        throw new IllegalArgumentException("class name '" + sorted[i] + "' given twice");
      }
    }
    return new LabelIndex(sorted.length, sorted);
  }

  public int numClasses() {
    return numClasses;
  }

  public boolean isNamed() {
    return names != null;
  }

  /** The class names in index order, or null for numeric labels. */
  public @Nullable List<String> classNames() {
    return names == null ? null : List.of(names);
  }

  /** Index of a numeric label; -1 when it is not an integer in range. */
  public int index(double label) {
    if (names != null) {
      throw new IllegalStateException("labels are names");
    }
    return label >= 0 && label < numClasses && label == Math.rint(label) ? (int) label : -1;
  }

  /** Index of a class name; -1 when it is not one of the names. */
  public int index(String label) {
    if (names == null) {
      throw new IllegalStateException("labels are numbers");
    }
    int i = Arrays.binarySearch(names, label);
    return i >= 0 ? i : -1;
  }

  @Override
  public String toString() {
    return names == null ? "LabelIndex{0.." + (numClasses - 1) + "}" : "LabelIndex" + Arrays.toString(names);
  }
}
