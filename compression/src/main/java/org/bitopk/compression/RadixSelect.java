package org.bitopk.compression;

import java.util.Arrays;

/**
 * Exact top-k by magnitude in expected O(d): a most-significant-digit radix select on the 31-bit key
 * {@code floatToRawIntBits(x) & 0x7fffffff}.
 *
 * <p><b>Why radix select.</b> For finite floats the key orders exactly like {@code |x|} (IEEE 754 magnitudes are
 * monotone in their bit patterns), so the k-th largest magnitude can be found digit by digit with histograms: no
 * comparisons, no data movement, no sort ({@code O(d log d)}) and no k-heap ({@code O(d log k)} with unpredictable
 * branches). The first digit is the top 11 bits (sign-free exponent plus 3 mantissa bits), counted in four
 * interleaved histograms of 2048 bins that stay in L1 and break the store-to-load dependency when neighbouring
 * values share a bucket. The bucket that contains the k-th largest key usually holds a tiny fraction of d, so the
 * second pass copies the indices of that bucket and of all larger buckets into a candidate list, and the remaining
 * digits (11 and 9 bits) are resolved on that list only. Two streaming passes over x, whatever the distribution;
 * degenerate inputs (all equal, many ties) fall back to further full passes and stay O(d).
 *
 * <p><b>Tie-break.</b> Among coordinates with equal |x| at the threshold, the lower indices win. This makes the
 * result a deterministic function of x (workers and the server agree, tests can compare with a brute-force
 * reference) and falls out of the final forward scan for free.
 *
 * <p>NaN or infinite entries land in histogram buckets above the largest finite key, so they are detected without
 * an extra pass and reported with {@link Checks#nonFinite}.
 *
 * <p>Not thread-safe: histograms and candidate buffers are reused across calls.
 */
final class RadixSelect {

  private static final int L1_BITS = 11;
  private static final int L1_BINS = 1 << L1_BITS;
  private static final int L1_SHIFT = 20;
  /** Bucket of the first finite-infinite boundary: keys >= 0x7f800000 are Inf or NaN. */
  private static final int NON_FINITE_BUCKET = 0x7f800000 >>> L1_SHIFT;

  private final int[] histograms = new int[4 * L1_BINS];
  private final int[] hist = new int[L1_BINS];
  private int[] candidates = new int[0];

  /** Mutable search state: the k-th largest key lies in {@code key >>> shift == prefix}, need of them wanted. */
  private int shift;
  private int prefix;
  private int need;
  private int inBucket;

  /**
   * The indices of the k largest |x|, ascending; ties at the threshold broken towards lower indices.
   *
   * @param x finite values (checked), not modified
   * @param k in [1, x.length] (the caller checks)
   */
  int[] topK(float[] x, int k) {
    int d = x.length;
    if (k == d) {
      Checks.requireFinite("x", x);
      return iota(d);
    }
    if (samplingApplies(d, k)) {
      int m = sampleSize(d, k);
      int stride = d / m;
      float[] sample = sampleBuffer(m);
      for (int j = 0, i = stride >>> 1; j < m; j++, i += stride) {
        sample[j] = x[i];
      }
      int lowKey = lowerBoundKey(sample, m, d, k);
      if (lowKey >= 0) {
        int n = collectAtLeast(x, lowKey, candidateCap(k));
        if (n >= k && n <= candidateCap(k)) {
          for (int j = 0; j < n; j++) {
            if (!Float.isFinite(x[candidates[j]])) {
              throw Checks.nonFinite("x", x); // non-finite keys exceed every bound, so they are all candidates
            }
          }
          return topKAmong(x, candidates, n, k);
        }
      }
    }
    countFirstLevel(x);
    return selectCounted(x, k);
  }

  // ---- Sampling pre-pass -------------------------------------------------------------------------------------
  //
  // A strided sample of m magnitudes gives a lower bound L for the k-th largest key: the key at sample rank
  // e + 4√e + 4 with e = m·k/d the expected number of sampled top-k members, i.e. four standard deviations of
  // slack. One pass then copies the indices with key >= L (about k to 2k of them), and the exact radix select runs
  // on those only. The answer stays exact whatever the sample says: if at least k keys are >= L, the k largest are
  // all among them (ties at the threshold included, so the lower-index tie-break is unchanged); if fewer than k are,
  // or too many to be worth it (all-equal data), the full radix select runs instead. On bell-shaped data this turns
  // the two passes of the plain algorithm into one (~40% less time at d = 25.6M, where memory bandwidth is the limit).

  /** Sampling pays off once the sample is a small part of x and the candidates a small part of d. */
  static boolean samplingApplies(int d, int k) {
    return d >= (1 << 15) && k <= (d >>> 5);
  }

  /** At least 16 expected top-k members in the sample, and at least d/128 samples; stride >= 2. */
  static int sampleSize(int d, int k) {
    long bySelection = (16L * d + k - 1) / k;
    return (int) Math.min(d >>> 1, Math.max(bySelection, d >>> 7));
  }

  static int candidateCap(int k) {
    return 4 * k + 1024;
  }

  float[] sampleBuffer(int m) {
    if (sample.length < m) {
      sample = new float[m];
    }
    return sample;
  }

  private float[] sample = new float[0];
  private int candidateCount;

  /** The key bound L from sample[0..m), or -1 when the sample cannot give a useful one. */
  int lowerBoundKey(float[] s, int m, int d, int k) {
    double expected = (double) m * k / d;
    int rank = (int) Math.ceil(expected + 4 * Math.sqrt(expected) + 4);
    if (rank >= m) {
      return -1;
    }
    int maxKey = 0;
    for (int j = 0; j < m; j++) {
      maxKey = Math.max(maxKey, Float.floatToRawIntBits(s[j]) & 0x7fffffff);
    }
    if (maxKey >= 0x7f800000) {
      return -1; // non-finite in the sample: let the full path report it
    }
    float[] view = m == s.length ? s : Arrays.copyOf(s, m);
    int[] top = radixTopK(view, rank);
    int minKey = Integer.MAX_VALUE;
    for (int j : top) {
      minKey = Math.min(minKey, Float.floatToRawIntBits(view[j]) & 0x7fffffff);
    }
    return minKey;
  }

  /** Copies the indices with key >= lowKey into {@link #candidates}, stopping to copy (not to count) at cap. */
  private int collectAtLeast(float[] x, int lowKey, int cap) {
    if (candidates.length < cap) {
      candidates = new int[cap];
    }
    int[] c = candidates;
    int n = 0;
    int bound = lowKey - 1;
    for (int i = 0; i < x.length; i++) {
      if ((Float.floatToRawIntBits(x[i]) & 0x7fffffff) > bound) {
        if (n < cap) {
          c[n] = i;
        }
        n++;
      }
    }
    return n;
  }

  /** The plain two-level radix select without sampling (used on the sample itself). */
  private int[] radixTopK(float[] x, int k) {
    if (k == x.length) {
      return iota(k);
    }
    countFirstLevel(x);
    return selectCounted(x, k);
  }

  /**
   * Error feedback's fused pass with the sampling bound: forms c, accumulates ||c||² and copies the indices whose key
   * is at least lowKey, all while each element is in a register. {@link #fusedCandidateCount()} then tells whether
   * {@link #topKAmongCandidates} applies.
   */
  double compensateAndCollect(float[] r, float[] input, float scale, float[] c, int lowKey, int cap) {
    if (candidates.length < cap) {
      candidates = new int[cap];
    }
    int[] cand = candidates;
    int n = 0;
    int bound = lowKey - 1;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int d = c.length;
    int i = 0;
    for (; i + 3 < d; i += 4) {
      float v0 = r == null ? scale * input[i] : r[i] + scale * input[i];
      float v1 = r == null ? scale * input[i + 1] : r[i + 1] + scale * input[i + 1];
      float v2 = r == null ? scale * input[i + 2] : r[i + 2] + scale * input[i + 2];
      float v3 = r == null ? scale * input[i + 3] : r[i + 3] + scale * input[i + 3];
      c[i] = v0;
      c[i + 1] = v1;
      c[i + 2] = v2;
      c[i + 3] = v3;
      s0 += (double) v0 * v0;
      s1 += (double) v1 * v1;
      s2 += (double) v2 * v2;
      s3 += (double) v3 * v3;
      int m = Math.max(Math.max(Float.floatToRawIntBits(v0) & 0x7fffffff, Float.floatToRawIntBits(v1) & 0x7fffffff),
          Math.max(Float.floatToRawIntBits(v2) & 0x7fffffff, Float.floatToRawIntBits(v3) & 0x7fffffff));
      if (m > bound) {
        // Rare: at least one of the four passes the bound; keep index order.
        for (int j = 0; j < 4; j++) {
          if ((Float.floatToRawIntBits(c[i + j]) & 0x7fffffff) > bound) {
            if (n < cap) {
              cand[n] = i + j;
            }
            n++;
          }
        }
      }
    }
    for (; i < d; i++) {
      float v = r == null ? scale * input[i] : r[i] + scale * input[i];
      c[i] = v;
      s0 += (double) v * v;
      if ((Float.floatToRawIntBits(v) & 0x7fffffff) > bound) {
        if (n < cap) {
          cand[n] = i;
        }
        n++;
      }
    }
    candidateCount = n;
    return (s0 + s1) + (s2 + s3);
  }

  int fusedCandidateCount() {
    return candidateCount;
  }

  /** Top k among the candidates of {@link #compensateAndCollect}, valid when k <= count <= cap. */
  int[] topKAmongCandidates(float[] c, int k) {
    return topKAmong(c, candidates, candidateCount, k);
  }

  /**
   * Error feedback's fused pass: {@code c[i] = r[i] + scale * input[i]} (or {@code scale * input[i]} when r is
   * null), the first-level histogram of c, and ||c||² in double, all while each element is in a register. Saves
   * the histogram's own read of c, a full pass over memory at the sizes where memory bandwidth is the limit. Follow
   * with {@link #selectCounted} once the returned sum is known to be finite.
   */
  double compensateAndCount(float[] r, float[] input, float scale, float[] c) {
    int[] h = histograms;
    Arrays.fill(h, 0);
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int d = c.length;
    int i = 0;
    if (r != null) {
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
        h[(Float.floatToRawIntBits(v0) & 0x7fffffff) >>> L1_SHIFT]++;
        h[L1_BINS + ((Float.floatToRawIntBits(v1) & 0x7fffffff) >>> L1_SHIFT)]++;
        h[2 * L1_BINS + ((Float.floatToRawIntBits(v2) & 0x7fffffff) >>> L1_SHIFT)]++;
        h[3 * L1_BINS + ((Float.floatToRawIntBits(v3) & 0x7fffffff) >>> L1_SHIFT)]++;
      }
    } else {
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
        h[(Float.floatToRawIntBits(v0) & 0x7fffffff) >>> L1_SHIFT]++;
        h[L1_BINS + ((Float.floatToRawIntBits(v1) & 0x7fffffff) >>> L1_SHIFT)]++;
        h[2 * L1_BINS + ((Float.floatToRawIntBits(v2) & 0x7fffffff) >>> L1_SHIFT)]++;
        h[3 * L1_BINS + ((Float.floatToRawIntBits(v3) & 0x7fffffff) >>> L1_SHIFT)]++;
      }
    }
    for (; i < d; i++) {
      float v = r == null ? scale * input[i] : r[i] + scale * input[i];
      c[i] = v;
      s0 += (double) v * v;
      h[(Float.floatToRawIntBits(v) & 0x7fffffff) >>> L1_SHIFT]++;
    }
    return (s0 + s1) + (s2 + s3);
  }

  /** Top k of x after {@link #countFirstLevel} or {@link #compensateAndCount} filled the histograms from x. */
  int[] selectCounted(float[] x, int k) {
    int d = x.length;
    if (k == d) {
      for (int b = NON_FINITE_BUCKET; b < L1_BINS; b++) {
        if (histograms[b] + histograms[L1_BINS + b] + histograms[2 * L1_BINS + b] + histograms[3 * L1_BINS + b] != 0) {
          throw Checks.nonFinite("x", x);
        }
      }
      return iota(d);
    }
    firstLevel(x, k);
    int[] domain = null;
    int domainSize = d;
    while (need != inBucket && shift != 0) {
      if (domain == null && (long) (k - need) + inBucket <= (d >>> 2)) {
        domainSize = (k - need) + inBucket;
        domain = collect(x, domainSize);
      }
      nextLevel(x, domain, domainSize);
    }
    return finish(x, domain, domainSize, k);
  }

  /**
   * The k largest |x[i]| among {@code i in subset[0..n)} (ascending indices), ascending; same tie-break.
   * Used by DGC's hierarchical re-selection.
   */
  int[] topKAmong(float[] x, int[] subset, int n, int k) {
    if (k == n) {
      return Arrays.copyOf(subset, n);
    }
    shift = 31;
    prefix = 0;
    need = k;
    inBucket = n;
    while (need != inBucket && shift != 0) {
      nextLevel(x, subset, n);
    }
    return finish(x, subset, n, k);
  }

  private void countFirstLevel(float[] x) {
    int[] h = histograms;
    Arrays.fill(h, 0);
    int d = x.length;
    int i = 0;
    for (; i + 3 < d; i += 4) {
      h[(Float.floatToRawIntBits(x[i]) & 0x7fffffff) >>> L1_SHIFT]++;
      h[L1_BINS + ((Float.floatToRawIntBits(x[i + 1]) & 0x7fffffff) >>> L1_SHIFT)]++;
      h[2 * L1_BINS + ((Float.floatToRawIntBits(x[i + 2]) & 0x7fffffff) >>> L1_SHIFT)]++;
      h[3 * L1_BINS + ((Float.floatToRawIntBits(x[i + 3]) & 0x7fffffff) >>> L1_SHIFT)]++;
    }
    for (; i < d; i++) {
      h[(Float.floatToRawIntBits(x[i]) & 0x7fffffff) >>> L1_SHIFT]++;
    }
  }

  /** Merges the interleaved histograms, rejects non-finite input and descends into the first digit. */
  private void firstLevel(float[] x, int k) {
    int[] h = histograms;
    int[] merged = hist;
    for (int b = 0; b < L1_BINS; b++) {
      merged[b] = h[b] + h[L1_BINS + b] + h[2 * L1_BINS + b] + h[3 * L1_BINS + b];
    }
    for (int b = NON_FINITE_BUCKET; b < L1_BINS; b++) {
      if (merged[b] != 0) {
        throw Checks.nonFinite("x", x);
      }
    }
    shift = 31;
    prefix = 0;
    need = k;
    descend(merged, L1_BITS, L1_SHIFT);
  }

  /** Resolves the next digit of the threshold, over all of x (domain null) or over the domain indices. */
  private void nextLevel(float[] x, int[] domain, int n) {
    int s = shift > L1_SHIFT ? L1_SHIFT : shift > 9 ? 9 : 0;
    int bits = shift - s;
    int mask = (1 << bits) - 1;
    int[] h = hist;
    Arrays.fill(h, 0, 1 << bits, 0);
    int sh = shift;
    int p = prefix;
    if (domain == null) {
      for (int i = 0; i < n; i++) {
        int key = Float.floatToRawIntBits(x[i]) & 0x7fffffff;
        if ((key >>> sh) == p) {
          h[(key >>> s) & mask]++;
        }
      }
    } else {
      for (int j = 0; j < n; j++) {
        int key = Float.floatToRawIntBits(x[domain[j]]) & 0x7fffffff;
        if ((key >>> sh) == p) {
          h[(key >>> s) & mask]++;
        }
      }
    }
    descend(h, bits, s);
  }

  /** Walks the histogram from the largest bucket down to the one holding the need-th largest key. */
  private void descend(int[] h, int bits, int newShift) {
    int b = (1 << bits) - 1;
    int remaining = need;
    while (h[b] < remaining) {
      remaining -= h[b];
      b--;
    }
    need = remaining;
    inBucket = h[b];
    prefix = (prefix << bits) | b;
    shift = newShift;
  }

  /** Copies the indices whose key is at or above the current bucket: the only ones still in play. */
  private int[] collect(float[] x, int size) {
    if (candidates.length < size) {
      candidates = new int[Math.max(size, candidates.length + (candidates.length >>> 1))];
    }
    int[] c = candidates;
    int n = 0;
    int sh = shift;
    int p = prefix;
    for (int i = 0; i < x.length; i++) {
      if (((Float.floatToRawIntBits(x[i]) & 0x7fffffff) >>> sh) >= p) {
        c[n++] = i;
      }
    }
    return c;
  }

  /** Emits, in index order, every key above the threshold bucket and the first need keys inside it. */
  private int[] finish(float[] x, int[] domain, int n, int k) {
    int[] out = new int[k];
    int m = 0;
    int ties = need;
    int sh = shift;
    int p = prefix;
    if (domain == null) {
      for (int i = 0; i < n && m < k; i++) {
        int t = (Float.floatToRawIntBits(x[i]) & 0x7fffffff) >>> sh;
        if (t > p || (t == p && ties-- > 0)) {
          out[m++] = i;
        }
      }
    } else {
      for (int j = 0; j < n && m < k; j++) {
        int i = domain[j];
        int t = (Float.floatToRawIntBits(x[i]) & 0x7fffffff) >>> sh;
        if (t > p || (t == p && ties-- > 0)) {
          out[m++] = i;
        }
      }
    }
    return out;
  }

  static int[] iota(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }
}
