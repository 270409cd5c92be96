package org.bitopk.compression;

/**
 * Error-feedback memory, the same for workers and the server: each step forms {@code c = residual + scale * input},
 * sends {@code compress(c)} and keeps {@code residual = c - sent}.
 *
 * <p>The subtraction is never computed: selected coordinates are copied out of c and set to exactly {@code 0f} in
 * the residual, the others keep c untouched. So {@code sent + residual == c} holds bit for bit, and nothing a
 * compressor drops is ever lost to rounding.
 *
 * <p>One fused pass forms c in a reused scratch buffer, accumulates {@code ||c||^2} in double and, through that sum,
 * detects NaN and infinities without a separate scan. Then the compressor selects, a gather over the k selected
 * coordinates copies the values out and zeroes them, and the scratch buffer becomes the residual (the old residual
 * buffer becomes the next scratch: a swap, not a copy). A step that throws therefore leaves the residual untouched.
 *
 * <p>Compressors that send values other than c's own (the unbiased {@code randomk:scaled} and {@code natural}) leave
 * {@code c - sent} at the sent coordinates instead of 0: exact for natural compression, one float rounding for
 * scaled Random-k (see {@link #sendValues}).
 *
 * <p>When disabled, c is formed the same way and forgotten after the step: the residual stays zero.
 * Not thread-safe; one instance per worker and one for the server.
 */
public final class ErrorFeedback {

  /** The residual (enabled) or zeros (disabled). */
  private float[] residual;
  /** Where the next c is formed; swapped with the residual after each step. */
  private float[] scratch;
  private final boolean enabled;
  /** True between a step and the next step or roll-back: {@link #scratch} still holds the residual before it. */
  private boolean undoable;

  private ErrorFeedback(float[] residual, boolean enabled) {
    this.residual = residual;
    this.scratch = new float[residual.length];
    this.enabled = enabled;
  }

  /** Error feedback on, starting from a zero residual. */
  public static ErrorFeedback enabled(int dimension) {
    return new ErrorFeedback(new float[requireDimension(dimension)], true);
  }

  /** Error feedback off: {@code c = scale * input}, the residual stays zero. */
  public static ErrorFeedback disabled(int dimension) {
    return new ErrorFeedback(new float[requireDimension(dimension)], false);
  }

  /** Error feedback on, resuming from a saved residual (copied; must be finite and non-empty). */
  public static ErrorFeedback restore(float[] residual) {
    if (residual == null) {
      throw new IllegalArgumentException("residual must not be null");
    }
    requireDimension(residual.length);
    Checks.requireFinite("residual", residual);
    return new ErrorFeedback(residual.clone(), true);
  }

  private static int requireDimension(int dimension) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension = " + dimension + " is out of range; expected dimension >= 1");
    }
    return dimension;
  }

  /**
   * One compression step.
   *
   * @param input the new vector (gradient or aggregate), length {@link #dimension()}, finite; not modified
   * @param scale multiplies the input before it joins the residual (the learning rate on workers, 1 on the
   *     server); finite
   * @param compressor selects coordinates of c
   * @param targetK in [1, dimension]
   */
  public CompressionStep step(float[] input, float scale, Compressor compressor, int targetK) {
    return step(input, scale, compressor, targetK, ValueFormat.FP32);
  }

  /**
   * One compression step whose message carries values rounded to {@code values} (see {@link ValueFormat#round}):
   * the compressor selects on the exact c, the residual keeps c minus the rounded value. For the selectors that
   * difference is exact (the rounded value is within a factor of two of c or zero: Sterbenz), so
   * {@code sent + residual == c} still holds; a coordinate where it would not be exact is sent as 0 and keeps all of
   * c. A message with a value the format cannot hold (beyond FP16's 65504, or within an ulp of
   * {@code Float.MAX_VALUE}) is sent in FP32 instead: {@link CompressionStep#valueFormat} says which.
   *
   * @param values the format of the sent values; FP32 is the plain {@link #step(float[], float, Compressor, int)}
   */
  public CompressionStep step(float[] input, float scale, Compressor compressor, int targetK, ValueFormat values) {
    if (values == null) {
      throw new IllegalArgumentException("value format must not be null");
    }
    int d = residual.length;
    if (input == null) {
      throw new IllegalArgumentException("input must not be null");
    }
    if (input.length != d) {
      throw new IllegalArgumentException("input length " + input.length + " does not match dimension " + d);
    }
    if (!Float.isFinite(scale)) {
      throw new IllegalArgumentException("scale = " + scale + " is not finite; expected a finite float");
    }
    if (compressor == null) {
      throw new IllegalArgumentException("compressor must not be null");
    }
    Checks.requireTargetK(targetK, d);

    undoable = false; // c is formed in the buffer that holds the residual before the previous step
    float[] c = scratch;
    float[] r = residual;
    // Exact TopK works inside the pass that forms c: a sample of c bounds the k-th largest magnitude from below and
    // the pass copies the few indices above the bound (see RadixSelect), or, when sampling does not apply, counts
    // the first radix digit. Either way c is read once fewer. Other compressors get c afterwards.
    TopKCompressor topK = compressor instanceof TopKCompressor ? (TopKCompressor) compressor : null;
    RadixSelect fused = topK != null ? topK.radix() : null;
    int lowKey = -1;
    if (fused != null && RadixSelect.samplingApplies(d, targetK)) {
      int m = RadixSelect.sampleSize(d, targetK);
      int stride = d / m;
      float[] sample = fused.sampleBuffer(m);
      for (int j = 0, i = stride >>> 1; j < m; j++, i += stride) {
        sample[j] = enabled ? r[i] + scale * input[i] : scale * input[i];
      }
      lowKey = fused.lowerBoundKey(sample, m, d, targetK);
    }
    double sumSquares;
    if (lowKey >= 0) {
      sumSquares = fused.compensateAndCollect(enabled ? r : null, input, scale, c, lowKey,
          RadixSelect.candidateCap(targetK));
    } else if (fused != null) {
      sumSquares = fused.compensateAndCount(enabled ? r : null, input, scale, c);
    } else {
      sumSquares = enabled ? compensate(r, input, scale, c) : scale(input, scale, c);
    }
    if (!Double.isFinite(sumSquares)) {
      // NaN/Inf anywhere makes the sum non-finite (finite floats squared cannot overflow a double).
      Checks.requireFinite("input", input);
      throw new IllegalArgumentException("residual + " + scale + " * input overflowed to a non-finite value; "
          + "expected finite compensated values");
    }

    if (compressor instanceof ValueCompressor) {
      return sendValues((ValueCompressor) compressor, c, r, targetK, sumSquares, values);
    }
    Selection selection;
    if (lowKey >= 0) {
      int n = fused.fusedCandidateCount();
      boolean usable = n >= targetK && n <= RadixSelect.candidateCap(targetK);
      selection = Selection.trusted(usable ? fused.topKAmongCandidates(c, targetK) : fused.topK(c, targetK), targetK);
    } else if (fused != null) {
      selection = Selection.trusted(fused.selectCounted(c, targetK), targetK);
    } else {
      selection = compressor.select(c, targetK);
    }
    if (topK != null && topK.isStrict()) {
      selection = Selection.trusted(TopKCompressor.strictlyAboveKthLargest(c, selection.indicesUnsafe()), targetK);
    }
    int[] idx = selection.indicesUnsafe();
    int n = idx.length;
    if (n > 0 && idx[n - 1] >= d) {
      throw new IllegalArgumentException("compressor returned index " + idx[n - 1]
          + "; expected indices < " + d + " (the dimension)");
    }
    float[] sent = new float[n];
    double sentSquares = 0;
    for (int j = 0; j < n; j++) {
      int i = idx[j];
      float v = c[i];
      sent[j] = v;
      c[i] = 0f;
      sentSquares += (double) v * v;
    }
    double residualSquares = n == d ? 0 : Math.max(0, sumSquares - sentSquares);
    ValueFormat sentFormat = ValueFormat.FP32;
    float[] rounded = values == ValueFormat.FP32 ? null : values.round(sent);
    if (rounded != null && allFinite(rounded)) {
      for (int j = 0; j < n; j++) {
        float exact = sent[j];
        float rest = exact - rounded[j];
        // rounded is 0 or within a factor of two of exact, so the double difference is exact
        if ((double) rest != (double) exact - (double) rounded[j]) {
          rounded[j] = 0f;
          rest = exact;
        }
        c[idx[j]] = rest;
        residualSquares += (double) rest * rest;
      }
      sent = rounded;
      sentFormat = values;
    }
    if (enabled) {
      scratch = r;
      residual = c;
      undoable = true;
    }
    return new CompressionStep(SparseVector.trusted(d, idx, sent), targetK, Math.sqrt(sumSquares),
        Math.sqrt(residualSquares), sentFormat);
  }

  private static boolean allFinite(float[] values) {
    for (float v : values) {
      if (!Float.isFinite(v)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The step of a compressor that sends its own values (scaled or quantised): the residual at a sent coordinate is
   * {@code c - sent}, one float subtraction. For natural compression it is exact (C(c) is within a factor of two of c
   * with its sign: Sterbenz), so {@code sent + residual == c}; for {@code randomk:scaled} it is
   * {@code fl(c - (d/k)·c)}, and {@code sent + residual} differs from c by at most that one rounding. A narrower value
   * format rounds the compressor's values before the subtraction: natural compression's powers of two stay exact in
   * FP16 (or become 0) and BF16, so its residual stays exact there; INT8 may add one rounding as scaled Random-k does.
   */
  private CompressionStep sendValues(ValueCompressor compressor, float[] c, float[] r, int targetK,
      double sumSquares, ValueFormat format) {
    int d = c.length;
    SparseVector sent = compressor.compress(c, targetK);
    if (sent.dimension() != d) {
      throw new IllegalArgumentException("compressor '" + compressor + "' returned dimension " + sent.dimension()
          + "; expected " + d);
    }
    int[] idx = sent.indicesUnsafe();
    ValueFormat sentFormat = ValueFormat.FP32;
    if (format != ValueFormat.FP32) {
      float[] rounded = format.round(sent.valuesUnsafe());
      if (allFinite(rounded)) {
        sent = SparseVector.trusted(d, idx, rounded);
        sentFormat = format;
      }
    }
    float[] values = sent.valuesUnsafe();
    double removed = 0;
    double kept = 0;
    for (int j = 0; j < idx.length; j++) {
      int i = idx[j];
      float before = c[i];
      float after = before - values[j];
      c[i] = after;
      removed += (double) before * before;
      kept += (double) after * after;
    }
    if (enabled) {
      scratch = r;
      residual = c;
      undoable = true;
    }
    double residualSquares = idx.length == d ? kept : Math.max(0, sumSquares - removed + kept);
    return new CompressionStep(sent, targetK, Math.sqrt(sumSquares), Math.sqrt(residualSquares), sentFormat);
  }

  /**
   * c[i] = r[i] + scale * input[i]; returns ||c||² in double. Four independent accumulators: one would chain every
   * element on the 4-cycle floating-point add latency.
   */
  private static double compensate(float[] r, float[] input, float scale, float[] c) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int d = c.length;
    int i = 0;
    for (; i + 3 < d; i += 4) {
      float v0 = r[i] + scale * input[i];
      float v1 = r[i + 1] + scale * input[i + 1];
      float v2 = r[i + 2] + scale * input[i + 2];
      float v3 = r[i + 3] + scale * input[i + 3];
      c[i] = v0;
      c[i + 1] = v1;
      c[i + 2] = v2;
      c[i + 3] = v3;
      s0 += (double) v0 * v0;
      s1 += (double) v1 * v1;
      s2 += (double) v2 * v2;
      s3 += (double) v3 * v3;
    }
    for (; i < d; i++) {
      float v = r[i] + scale * input[i];
      c[i] = v;
      s0 += (double) v * v;
    }
    return (s0 + s1) + (s2 + s3);
  }

  /** c[i] = scale * input[i]; returns ||c||² in double (see {@link #compensate}). */
  private static double scale(float[] input, float scale, float[] c) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int d = c.length;
    int i = 0;
    for (; i + 3 < d; i += 4) {
      float v0 = scale * input[i];
      float v1 = scale * input[i + 1];
      float v2 = scale * input[i + 2];
      float v3 = scale * input[i + 3];
      c[i] = v0;
      c[i + 1] = v1;
      c[i + 2] = v2;
      c[i + 3] = v3;
      s0 += (double) v0 * v0;
      s1 += (double) v1 * v1;
      s2 += (double) v2 * v2;
      s3 += (double) v3 * v3;
    }
    for (; i < d; i++) {
      float v = scale * input[i];
      c[i] = v;
      s0 += (double) v * v;
    }
    return (s0 + s1) + (s2 + s3);
  }

  /**
   * Restores the residual from before the last step, without a copy: the step's swap left it untouched in the
   * scratch buffer. A distributed worker needs this when the attempt that took a step is retried (the step must
   * count once) or its result was discarded.
   *
   * @throws IllegalStateException if there is no step to undo (none yet, or already rolled back)
   */
  public void rollBack() {
    if (!enabled) {
      return; // the residual is always zero
    }
    if (!undoable) {
      throw new IllegalStateException("no step to roll back");
    }
    float[] before = scratch;
    scratch = residual;
    residual = before;
    undoable = false;
  }

  /** Whether {@link #rollBack()} can restore the residual before the last step. */
  public boolean canRollBack() {
    return !enabled || undoable;
  }

  /** A copy of the residual (all zeros when disabled). */
  public float[] residual() {
    return residual.clone();
  }

  /** Whether the residual is kept between steps. */
  public boolean isEnabled() {
    return enabled;
  }

  /** Length of the vectors this instance accepts. */
  public int dimension() {
    return residual.length;
  }
}
