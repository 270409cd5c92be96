package org.bitopk.compression;

/**
 * How {@link SparseCodec} stores values, and how {@link ErrorFeedback} rounds the values it sends so that the
 * message is exact in that format. {@link #round} is the one rounding both use: the encoder of a narrower format
 * writes {@code round(values)}, and rounding is idempotent, so values a step has already rounded travel unchanged.
 */
public enum ValueFormat {
  /** IEEE 754 binary32, little-endian, 4 bytes: exact round trip. */
  FP32 {
    @Override
    float[] round(float[] values) {
      return values.clone();
    }
  },
  /**
   * IEEE 754 binary16, little-endian, 2 bytes, rounded to nearest, ties to even. Relative error at most 2^-11 for
   * |v| in the normal half range [2^-14, 65504]; absolute error at most 2^-25 below it. Values whose magnitude rounds
   * above 65504 (|v| >= 65520) are rejected by the encoder rather than clamped, since a silently clamped gradient
   * is a wrong gradient ({@link ErrorFeedback} sends such a message in FP32 instead).
   */
  FP16 {
    @Override
    float[] round(float[] values) {
      float[] out = new float[values.length];
      for (int i = 0; i < values.length; i++) {
        out[i] = Half.toFloat(Half.fromFloat(values[i]));
      }
      return out;
    }
  },
  /**
   * bfloat16: the upper 16 bits of the binary32 pattern, rounded to nearest, ties to even; 2 bytes. float32's range
   * with 8 significant bits (relative error at most 2^-9); only |v| within half an ulp of
   * {@code Float.MAX_VALUE} overflows.
   */
  BF16 {
    @Override
    float[] round(float[] values) {
      float[] out = new float[values.length];
      for (int i = 0; i < values.length; i++) {
        int bits = Float.floatToRawIntBits(values[i]);
        out[i] = Float.intBitsToFloat((bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000);
      }
      return out;
    }
  },
  /**
   * One signed byte q in [-127, 127] a value and one float32 scale s a message (4 bytes); the value is
   * {@code q * s}. s is {@code max|v| / 127} rounded up to 17 significant bits, so that {@code q * s} is exact in
   * float for every q and the scale can be found again from the rounded values; q is {@code v / s} rounded to
   * nearest, ties to even. Absolute error at most s/2 (a 17-bit scale costs at most 2^-16 of the range); zeros
   * become +0.
   */
  INT8 {
    @Override
    float[] round(float[] values) {
      float s = int8Scale(values);
      float[] out = new float[values.length];
      if (s == 0) {
        return out;
      }
      for (int i = 0; i < values.length; i++) {
        out[i] = int8Code(values[i], s) * s;
      }
      return out;
    }
  };

  /** The format's name on the command line: fp32, fp16, bf16 or int8. */
  public String text() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The format named by {@link #text()} (any case). */
  public static ValueFormat parse(String text) {
    for (ValueFormat f : values()) {
      if (f.text().equalsIgnoreCase(text == null ? "" : text.trim())) {
        return f;
      }
    }
    throw new IllegalArgumentException("unknown value format '" + text + "'; expected fp32, fp16, bf16 or int8");
  }

  /**
   * The values as a receiver of this format decodes them. May hold infinities where a value overflows the format,
   * which the encoder refuses and {@link ErrorFeedback} avoids by sending FP32.
   */
  abstract float[] round(float[] values);

  /**
   * The INT8 scale: {@code max|v| / 127} rounded up to a float whose significand has its low 7 bits clear (17
   * significant bits), so {@code q * s} is exact for |q| <= 127 and {@code (127 s) / 127 == s}; 0 when every value is
   * zero.
   */
  static float int8Scale(float[] values) {
    float max = 0;
    for (float v : values) {
      max = Math.max(max, Math.abs(v));
    }
    if (max == 0) {
      return 0;
    }
    double exact = max / 127.0;
    float s = (float) exact;
    if (s < exact) {
      s = Math.nextUp(s);
    }
    int bits = Float.floatToRawIntBits(s);
    if ((bits & 0x7f) != 0) {
      bits = (bits | 0x7f) + 1;
    }
    return Float.intBitsToFloat(bits);
  }

  /** v / s rounded to the nearest integer (ties to even), within [-127, 127]. */
  static int int8Code(float v, float s) {
    return (int) Math.max(-127, Math.min(127, Math.rint(v / (double) s)));
  }
}
