package org.bitopk.datasets;

/**
 * Derives independent seeds from a user seed and a few coordinates (worker, epoch, batch, purpose), so every
 * random stream is reproducible on any executor without coordination.
 */
final class Seeds {
  private Seeds() {}

  /** SplitMix64-style mix of the parts; different part lists give unrelated seeds. */
  static long mix(long seed, long... parts) {
    long h = finish(seed ^ 0x9E3779B97F4A7C15L);
    for (long part : parts) {
      h = finish(h + 0x9E3779B97F4A7C15L + finish(part));
    }
    return h;
  }

  private static long finish(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Fisher-Yates permutation of {@code 0..n-1} by {@link java.util.Random}, whose output the JDK specifies. */
  static int[] permutation(int n, long seed) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    java.util.Random random = new java.util.Random(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }
}
