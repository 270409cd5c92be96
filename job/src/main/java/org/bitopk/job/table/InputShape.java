package org.bitopk.job.table;

import java.util.Locale;

/**
 * The shape (channels × height × width) of a table's examples: parsed from {@code CxHxW}, or inferred from the
 * number of feature values. Apart from {@link TableData}, as the build step infers the shape too.
 */
public final class InputShape {
  private InputShape() {}

  /**
   * 1×s×s for a perfect square s², 3×s×s for 3·s², else 1×1×L (a flat vector: for the MLPs; a convolutional
   * model needs an explicit shape).
   */
  public static int[] infer(int length) {
    int s = (int) Math.round(Math.sqrt(length));
    if (s * s == length) {
      return new int[] {1, s, s};
    }
    if (length % 3 == 0) {
      int t = (int) Math.round(Math.sqrt(length / 3.0));
      if (3 * t * t == length) {
        return new int[] {3, t, t};
      }
    }
    return new int[] {1, 1, length};
  }

  /** Parses {@code CxHxW}; the message names {@code flag}. */
  public static int[] parse(String text, String flag) {
    String[] parts = text.trim().toLowerCase(Locale.ROOT).split("x", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(flag + ": expected CxHxW (e.g. 1x28x28), got '" + text + "'");
    }
    int[] shape = new int[3];
    for (int i = 0; i < 3; i++) {
      try {
        shape[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(flag + ": expected CxHxW (e.g. 1x28x28), got '" + text + "'");
      }
      if (shape[i] < 1) {
        throw new IllegalArgumentException(flag + ": sizes must be positive, got '" + text + "'");
      }
    }
    return shape;
  }
}
