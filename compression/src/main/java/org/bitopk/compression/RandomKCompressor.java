package org.bitopk.compression;

import java.util.SplittableRandom;

/**
 * Random-k: k distinct indices uniformly at random (magnitudes are ignored; error feedback keeps the rest). Robert
 * Floyd's sampling draws exactly k distinct indices with k random numbers; a reused bitset of d bits replaces the
 * hash set and yields the indices in ascending order with a word scan of d/64 steps, so no sort is needed.
 *
 * <p>Call i draws from its own generator seeded with {@link CallSeeds#of}(seed, i): the selections are a function
 * of the seed and the call index alone, and the saved state is the call counter.
 */
final class RandomKCompressor implements Compressor {

  private final long seed;
  private long calls;
  private long[] bits = new long[0];

  RandomKCompressor(long seed) {
    this.seed = seed;
  }

  @Override
  public Selection select(float[] x, int targetK) {
    Checks.requireSelectArguments(x, targetK);
    Checks.requireFinite("x", x);
    int d = x.length;
    int words = (d + 63) >>> 6;
    if (bits.length < words) {
      bits = new long[words];
    }
    long[] b = bits;
    SplittableRandom random = new SplittableRandom(CallSeeds.of(seed, calls));
    for (int j = d - targetK; j < d; j++) {
      int t = random.nextInt(j + 1);
      if ((b[t >>> 6] & (1L << t)) != 0) {
        t = j;
      }
      b[t >>> 6] |= 1L << t;
    }
    int[] out = new int[targetK];
    int n = 0;
    for (int w = 0; w < words; w++) {
      long word = b[w];
      while (word != 0) {
        out[n++] = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
      }
      b[w] = 0;
    }
    calls++;
    return Selection.trusted(out, targetK);
  }

  /** The number of calls so far: the whole state, for {@link ScaledRandomKCompressor}. */
  long calls() {
    return calls;
  }

  void calls(long calls) {
    this.calls = calls;
  }

  /** {seed, calls}: the seed only to refuse a state saved with another one. */
  @Override
  public byte[] saveState() {
    return CompressorState.write(toString(), seed, calls);
  }

  @Override
  public void restoreState(byte[] state) {
    calls = CompressorState.readCallCounter(state, toString(), seed);
  }

  @Override
  public String toString() {
    return "randomk";
  }
}
