package org.bitopk.compression;

/** How {@link SparseCodec} stores values. */
public enum ValueFormat {
  /** IEEE 754 binary32, little-endian, 4 bytes: exact round trip. */
  FP32,
  /**
   * IEEE 754 binary16, little-endian, 2 bytes, rounded to nearest, ties to even. Relative error at most 2^-11 for
   * |v| in the normal half range [2^-14, 65504]; absolute error at most 2^-25 below it. Values whose magnitude rounds
   * above 65504 (|v| >= 65520) are rejected by the encoder rather than clamped, since a silently clamped gradient
   * is a wrong gradient.
   */
  FP16
}
