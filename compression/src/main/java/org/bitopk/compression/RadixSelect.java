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

  private void firstLevel(float[] x, int k) {
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
