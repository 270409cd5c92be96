package org.bitopk.compression;

import java.util.Arrays;

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
 * <p>One round: {@link #begin}, {@link #add} for each message in order, {@link #finish}. Not thread-safe.
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
  private int[] indices = new int[0];
  private float[] values = new float[0];
  /** Message m's entries are [starts[m], starts[m + 1]) of the buffers; cursors[m] is the next to add. */
  private int[] starts = new int[2];
  private int[] cursors = new int[1];
  private int messages;
  private long entries;
  private boolean zeroed;

  /** @param sum the dense sum, written by {@link #finish}, read by nobody else during a round */
  public SparseSum(float[] sum) {
    this(sum, BLOCK, QUEUE);
  }

  /** @param block a multiple of 64 */
  SparseSum(float[] sum, int block, int queueCapacity) {
    if (sum.length < 1 || block < 64 || block % 64 != 0 || queueCapacity < 1) {
      throw new IllegalArgumentException("sum of length " + sum.length + ", block " + block + ", queue "
          + queueCapacity + "; expected a non-empty sum, a block that is a multiple of 64 and a queue >= 1");
    }
    this.sum = sum;
    this.marks = new long[(sum.length + 63) >>> 6];
    this.block = block;
    this.queueCapacity = queueCapacity;
  }

  /** Starts a round: forgets whatever an earlier round left, the sum is zero until the first message. */
  public void begin() {
    messages = 0;
    entries = 0;
    zeroed = false;
    Arrays.fill(marks, 0L);
  }

  /**
   * Decodes and checks one message and queues its entries for the sum.
   *
   * @return the message's nnz
   * @throws IllegalArgumentException as {@link SparseCodec#decode}, with its messages, or when the message's dimension
   *     is not the sum's; the round is then unchanged
   */
  public int add(byte[] bytes) {
    SparseCodec.Header h = SparseCodec.header(bytes);
    if (h.dimension() != sum.length) {
      throw new IllegalArgumentException("message of dimension " + h.dimension() + "; expected " + sum.length);
    }
    int nnz = h.nnz();
    int queued = starts[messages];
    if (messages > 0 && (long) queued + nnz > queueCapacity) {
      addQueued(false, 0f);
      queued = 0;
    }
    if (indices.length - queued < nnz) {
      int size = (int) Math.min(Integer.MAX_VALUE - 8, Math.max((long) queued + nnz, indices.length * 3L / 2));
      indices = Arrays.copyOf(indices, size);
      values = Arrays.copyOf(values, size);
    }
    SparseCodec.readEntries(bytes, h, indices, values, queued);
    if (starts.length < messages + 2) {
      starts = Arrays.copyOf(starts, 2 * starts.length);
      cursors = new int[starts.length - 1];
    }
    starts[messages + 1] = queued + nnz;
    messages++;
    entries += nnz;
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

  /** Adds the queued messages block by block; at the end of the round also lists (and divides) the union. */
  private int[] addQueued(boolean last, float divisor) {
    int d = sum.length;
    float[] s = sum;
    long[] m = marks;
    int[] idx = indices;
    float[] val = values;
    int n = messages;
    System.arraycopy(starts, 0, cursors, 0, n);
    int[] union = last ? new int[(int) Math.min(d, entries)] : null;
    int listed = 0;
    boolean divide = !Float.isNaN(divisor);
    for (int lo = 0; lo < d; lo += block) {
      int hi = Math.min(d, lo + block);
      if (!zeroed) {
        Arrays.fill(s, lo, hi, 0f);
      }
      for (int msg = 0; msg < n; msg++) {
        int p = cursors[msg];
        int end = starts[msg + 1];
        while (p < end) {
          int j = idx[p];
          if (j >= hi) {
            break;
          }
          s[j] += val[p];
          m[j >>> 6] |= 1L << j;
          p++;
        }
        cursors[msg] = p;
      }
      if (last) {
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
    zeroed = true;
    messages = 0;
    starts[0] = 0;
    if (!last) {
      return null;
    }
    begin();
    return listed == union.length ? union : Arrays.copyOf(union, listed);
  }
}
