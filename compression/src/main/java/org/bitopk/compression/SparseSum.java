package org.bitopk.compression;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sum of many {@link SparseCodec} messages into one dense vector, each coordinate's additions in the order the
 * messages were added: what the parameter server does with the P uplinks of a round, with no {@link SparseVector}
 * and no allocation a message.
 *
 * <p>Each message is decoded and checked in full, exactly as {@link SparseCodec#decode} does it, into buffers the sum
 * reuses, before any of it is added: a defective message adds nothing. The additions then run one block of the sum
 * at a time (256 KB of floats, which stays in the core's cache): every queued message adds its entries of that block,
 * in message order, so each coordinate still receives its additions in message order (float addition is not
 * associative) while the scattered additions hit the cache instead of memory. The same sweep zeroes each block
 * before the first addition, lists the union of the supports and divides it, so the sum needs no pass of its own.
 * Past a bound on the queued entries (64 MB of buffers) the queue is added into the sum before the next message.
 *
 * <p><b>Threads.</b> With {@code threads > 1} both stages are shared out, and the result is the same bit for bit
 * whatever the count. The messages of an {@link #addAll} are decoded at once, each by whichever thread takes it next,
 * into its own slots of the buffers (its entries are where a lone thread would put them). The sum is cut into one
 * range of whole blocks per thread; each thread finds where every message's entries of its range start (a binary
 * search in the message's ascending indices) and adds them block by block as above, in message order, so each
 * coordinate receives exactly the additions, in the order, of a lone thread; it also zeroes, lists and divides its
 * own range. No thread decodes a message another decoded, no two touch the same coordinate (blocks are multiples of
 * 64, so neither the same word of the union's bitmap). The ranges are cut at each round's first addition so that
 * each costs about the same (its coordinates, and its entries weighted by {@link #ENTRY_WEIGHT}).
 *
 * <p>One round: {@link #begin}, {@link #add} or {@link #addAll} in message order, {@link #finish}. Not thread-safe:
 * one caller at a time, which lends its thread to the work.
 */
public final class SparseSum {
  /** Coordinates of the sum added at a time: 256 KB of floats, a quarter of a core's L2 cache. */
  static final int BLOCK = 1 << 16;
  /** Entries decoded before they are added into the sum: 64 MB of index and value buffers at most. */
  static final int QUEUE = 1 << 23;

  private final float[] sum;
  private final long[] marks;
  private final int block;
  private final int queueCapacity;
  private final HelperThreads threads;
  /** An entry costs about as much to add as this many coordinates cost to zero, sweep and write back. */
  static final int ENTRY_WEIGHT = 4;

  /**
   * Range r of the sum is [bounds[r], bounds[r + 1]), whole blocks; one range per thread, fewer for a small sum. Cut
   * anew at each round's first addition so that the ranges cost about the same.
   */
  private final int[] bounds;
  /** Entries added into each range this round: with its length, a bound on its part of the union. */
  private final long[] rangeEntries;
  private int[] indices = new int[0];
  private float[] values = new float[0];
  /** Message m's entries are [starts[m], starts[m + 1]) of the buffers. */
  private int[] starts = new int[2];
  /** cursors[r][m]: message m's next entry to add in range r, at first its first entry at or after bounds[r]. */
  private int[][] cursors;
  private int messages;
  private long entries;
  private boolean zeroed;

  /**
   * One thread, the caller's.
   *
   * @param sum the dense sum, written by {@link #finish}, read by nobody else during a round
   */
  public SparseSum(float[] sum) {
    this(sum, 1);
  }

  /**
   * @param sum the dense sum, written by {@link #finish}, read by nobody else during a round
   * @param threads how many threads decode and add, the caller's included (the others are daemon threads that end
   *     when idle for {@value HelperThreads#IDLE_SECONDS} s); the result does not depend on it
   */
  public SparseSum(float[] sum, int threads) {
    this(sum, threads, BLOCK, QUEUE);
  }

  /** @param block a multiple of 64 */
  SparseSum(float[] sum, int threads, int block, int queueCapacity) {
    if (sum.length < 1 || block < 64 || block % 64 != 0 || queueCapacity < 1 || threads < 1) {
      throw new IllegalArgumentException("sum of length " + sum.length + ", block " + block + ", queue "
          + queueCapacity + ", threads " + threads + "; expected a non-empty sum, a block that is a multiple of 64, "
          + "a queue >= 1 and threads >= 1");
    }
    this.sum = sum;
    this.marks = new long[(sum.length + 63) >>> 6];
    this.block = block;
    this.queueCapacity = queueCapacity;
    long blocks = (sum.length + (long) block - 1) / block;
    int ranges = (int) Math.min(threads, blocks);
    this.threads = new HelperThreads(threads);
    this.bounds = new int[ranges + 1];
    bounds[ranges] = sum.length;
    this.rangeEntries = new long[ranges];
    this.cursors = new int[ranges][1];
  }

  /** Starts a round: forgets whatever an earlier round left, the sum is zero until the first message. */
  public void begin() {
    messages = 0;
    entries = 0;
    zeroed = false;
    Arrays.fill(marks, 0L);
    Arrays.fill(rangeEntries, 0L);
  }

  /**
   * Decodes and checks one message and queues its entries for the sum.
   *
   * @return the message's nnz
   * @throws IllegalArgumentException as {@link SparseCodec#decode}, with its messages, or when the message's dimension
   *     is not the sum's; the round is then unchanged
   */
  public int add(byte[] bytes) {
    return (int) addAll(Collections.singletonList(bytes));
  }

  /**
   * {@link #add} of each message in order, the messages decoded at once by the sum's threads.
   *
   * @return Σ nnz of the messages
   * @throws IllegalArgumentException as {@link #add} for the first defective message: the messages before it are
   *     queued, nothing of it or of those after it
   */
  public long addAll(List<byte[]> batch) {
    int n = batch.size();
    SparseCodec.Header[] headers = new SparseCodec.Header[n];
    long added = 0;
    int from = 0;
    while (from < n) {
      int queued = starts[messages];
      long chunk = 0;
      int to = from;
      IllegalArgumentException defect = null;
      boolean full = false;
      for (; to < n; to++) {
        SparseCodec.Header h;
        try {
          h = header(batch.get(to));
        } catch (IllegalArgumentException e) {
          defect = e;
          break;
        }
        if (messages + (to - from) > 0 && queued + chunk + h.nnz() > queueCapacity) {
          full = true; // the queue is added into the sum before this message
          break;
        }
        headers[to] = h;
        chunk += h.nnz();
      }
      if (to > from) {
        added += decode(batch, headers, from, to, queued, chunk);
      }
      if (defect != null) {
        throw defect;
      }
      if (full) {
        addQueued(false, 0f);
      }
      from = to;
    }
    return added;
  }

  private SparseCodec.Header header(byte[] bytes) {
    SparseCodec.Header h = SparseCodec.header(bytes);
    if (h.dimension() != sum.length) {
      throw new IllegalArgumentException("message of dimension " + h.dimension() + "; expected " + sum.length);
    }
    return h;
  }

  /**
   * Decodes messages [from, to) of the batch into the buffers after the {@code queued} entries there, at once, and
   * queues those before the first defective one (then thrown); returns their Σ nnz.
   */
  private long decode(List<byte[]> batch, SparseCodec.Header[] headers, int from, int to, int queued, long chunk) {
    int count = to - from;
    long needed = queued + chunk;
    if (indices.length < needed) {
      int size = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, indices.length * 3L / 2));
      indices = Arrays.copyOf(indices, size);
      values = Arrays.copyOf(values, size);
    }
    if (starts.length < messages + count + 2) {
      starts = Arrays.copyOf(starts, Math.max(2 * starts.length, messages + count + 2));
    }
    for (int i = 0; i < count; i++) {
      starts[messages + i + 1] = starts[messages + i] + headers[from + i].nnz();
    }
    IllegalArgumentException[] defects = new IllegalArgumentException[count];
    int[] at = starts;
    int first = messages;
    int[] idx = indices;
    float[] val = values;
    AtomicInteger next = new AtomicInteger();
    threads.run(Math.min(count, threads.threads()), part -> {
      for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
        try {
          SparseCodec.readEntries(batch.get(from + i), headers[from + i], idx, val, at[first + i]);
        } catch (IllegalArgumentException e) {
          defects[i] = e;
        }
      }
    });
    int good = 0;
    while (good < count && defects[good] == null) {
      good++;
    }
    long nnz = starts[messages + good] - starts[messages];
    messages += good;
    entries += nnz;
    if (good < count) {
      throw defects[good];
    }
    return nnz;
  }

  /**
   * Ends the round: the sum holds Σ of the messages at the union of their supports and +0 elsewhere (+0 everywhere
   * with no message).
   *
   * @return the union of the supports, ascending
   */
  public int[] finish() {
    return addQueued(true, Float.NaN);
  }

  /** {@link #finish} with the union divided by {@code divisor} as each coordinate's last operation. */
  public int[] finishMean(float divisor) {
    if (Float.isNaN(divisor)) {
      throw new IllegalArgumentException("divisor is NaN");
    }
    return addQueued(true, divisor);
  }

  /** Adds the queued messages range by range; at the end of the round also lists (and divides) the union. */
  private int[] addQueued(boolean last, float divisor) {
    int ranges = bounds.length - 1;
    int n = messages;
    if (cursors[0].length < n) {
      cursors = new int[ranges][starts.length];
    }
    if (!zeroed) {
      cutRanges(n);
    }
    for (int m = 0; m < n; m++) {
      cursors[0][m] = starts[m];
      for (int r = 1; r < ranges; r++) {
        cursors[r][m] = firstAtLeast(cursors[r - 1][m], starts[m + 1], bounds[r]);
      }
      for (int r = 0; r < ranges; r++) {
        rangeEntries[r] += (r + 1 < ranges ? cursors[r + 1][m] : starts[m + 1]) - cursors[r][m];
      }
    }
    int[] union = null;
    int[] unionAt = new int[ranges + 1];
    if (last) {
      for (int r = 0; r < ranges; r++) {
        unionAt[r + 1] = unionAt[r] + (int) Math.min(bounds[r + 1] - bounds[r], rangeEntries[r]);
      }
      union = new int[unionAt[ranges]];
    }
    int[] listed = new int[ranges];
    int[] out = union;
    threads.run(ranges, r -> listed[r] = addRange(r, out, unionAt[r], divisor));
    zeroed = true;
    messages = 0;
    starts[0] = 0;
    if (!last) {
      return null;
    }
    int size = listed[0];
    for (int r = 1; r < ranges; r++) {
      if (unionAt[r] != size) { // a range that listed fewer than its bound leaves a gap to close
        System.arraycopy(union, unionAt[r], union, size, listed[r]);
      }
      size += listed[r];
    }
    begin();
    return size == union.length ? union : Arrays.copyOf(union, size);
  }

  /**
   * Cuts the sum into ranges of whole blocks that cost about the same to add the queued entries into: each range's
   * coordinates plus {@link #ENTRY_WEIGHT} per entry in it (supports crowded into a few blocks would otherwise leave
   * most threads waiting). The bits do not depend on where the cuts fall.
   */
  private void cutRanges(int n) {
    int ranges = bounds.length - 1;
    int blocks = (int) ((sum.length + (long) block - 1) / block);
    double total = cost(blocks, n);
    int from = 0;
    for (int r = 1; r < ranges; r++) {
      double target = total * r / ranges;
      int lo = from;
      int hi = blocks;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (cost(mid, n) < target) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      bounds[r] = (int) Math.min(sum.length, (long) lo * block);
      from = lo;
    }
  }

  /** The cost of the first {@code blocks} blocks: their coordinates and {@link #ENTRY_WEIGHT} per queued entry. */
  private double cost(int blocks, int n) {
    int end = (int) Math.min(sum.length, (long) blocks * block);
    long queued = 0;
    for (int m = 0; m < n; m++) {
      queued += firstAtLeast(starts[m], starts[m + 1], end) - starts[m];
    }
    return end + (double) ENTRY_WEIGHT * queued;
  }

  /** Where the ranges of this round begin, and the sum's end: for tests. */
  int[] rangeBounds() {
    return bounds.clone();
  }

  /** The first position in [from, to) of the queued indices whose index is at least {@code bound}, else to. */
  private int firstAtLeast(int from, int to, int bound) {
    int lo = from;
    int hi = to;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (indices[mid] < bound) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * Adds the queued entries of range r block by block in message order; with a union to fill (the round's end) lists
   * the range's part of it from {@code unionAt} on, dividing unless the divisor is NaN. Returns how many it listed.
   */
  private int addRange(int r, int[] union, int unionAt, float divisor) {
    float[] s = sum;
    long[] m = marks;
    int[] idx = indices;
    float[] val = values;
    int[] cursor = cursors[r];
    int n = messages;
    int listed = unionAt;
    boolean divide = !Float.isNaN(divisor);
    for (int lo = bounds[r], end = bounds[r + 1]; lo < end; lo += block) {
      int hi = Math.min(end, lo + block);
      if (!zeroed) {
        Arrays.fill(s, lo, hi, 0f);
      }
      for (int msg = 0; msg < n; msg++) {
        int p = cursor[msg];
        int stop = starts[msg + 1];
        while (p < stop) {
          int j = idx[p];
          if (j >= hi) {
            break;
          }
          s[j] += val[p];
          m[j >>> 6] |= 1L << j;
          p++;
        }
        cursor[msg] = p;
      }
      if (union != null) {
        for (int w = lo >>> 6, wordEnd = (hi + 63) >>> 6; w < wordEnd; w++) {
          long word = m[w];
          if (word == 0) {
            continue;
          }
          m[w] = 0;
          int base = w << 6;
          do {
            int j = base + Long.numberOfTrailingZeros(word);
            if (divide) {
              s[j] = s[j] / divisor;
            }
            union[listed++] = j;
            word &= word - 1;
          } while (word != 0);
        }
      }
    }
    return listed - unionAt;
  }
}
