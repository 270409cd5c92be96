package org.bitopk.compression;

/** "none": selects every coordinate, the dense baseline through the same code path. */
final class DenseCompressor implements Compressor {

  @Override
  public Selection select(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    Checks.requireFinite("x", x);
    return Selection.trusted(RadixSelect.iota(x.length), targetK);
  }

  @Override
  public String toString() {
    return "none";
  }
}
