package org.bitopk.compression;

/** Argument checks shared by the compressors; each failure names the value and the expected range. */
final class Checks {

  private Checks() {}

  /** Validates a compressor's input: non-empty and {@code 1 <= targetK <= x.length}. */
  static void requireSelectArguments(float[] x, int targetK) {
    if (x == null) {
      throw new IllegalArgumentException("x must not be null");
    }
    if (x.length == 0) {
      throw new IllegalArgumentException("x is empty (length 0); expected at least 1 coordinate");
    }
    requireTargetK(targetK, x.length);
  }

  static void requireTargetK(int targetK, int dimension) {
    if (targetK < 1 || targetK > dimension) {
      throw new IllegalArgumentException(
          "targetK = " + targetK + " is out of range; expected 1 <= targetK <= " + dimension + " (the dimension)");
    }
  }

  /**
   * Throws the error for a vector known to hold NaN or infinite entries. Only called on the error path, after a
   * hot loop has folded the finiteness test into a sum or a histogram, so the counting scan costs nothing on
   * valid input.
   */
  static IllegalArgumentException nonFinite(String name, float[] x) {
    int count = 0;
    int first = -1;
    for (int i = 0; i < x.length; i++) {
      if (!Float.isFinite(x[i])) {
        if (first < 0) {
          first = i;
        }
        count++;
      }
    }
    if (count == 0) {
      return new IllegalArgumentException(name + " overflowed to a non-finite value; expected finite values");
    }
    return new IllegalArgumentException(name + " contains " + count + " non-finite value" + (count == 1 ? "" : "s")
        + " (NaN or Infinity); first at index " + first + " (" + x[first] + "); expected finite values");
  }

  /** Scans x and throws {@link #nonFinite} if any entry is NaN or infinite. */
  static void requireFinite(String name, float[] x) {
    // The largest magnitude bit pattern is >= that of infinity iff some entry is NaN or infinite; an integer max
    // has no floating-point dependency chain and vectorizes.
    int maxKey = 0;
    for (float v : x) {
      maxKey = Math.max(maxKey, Float.floatToRawIntBits(v) & 0x7fffffff);
    }
    if (maxKey >= 0x7f800000) {
      throw nonFinite(name, x);
    }
  }
}
