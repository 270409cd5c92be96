package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SparseSum} on 1 to 5 threads against decode-then-add (each message decoded into a {@link SparseVector}, its
 * entries added into a dense sum in message order, the union divided by P) and against the sum on one thread: the
 * same sums bit for bit and the same union, whatever the thread count. Random rounds of P messages over d coordinates
 * at densities from empty to dense: empty messages, the same message twice, supports that overlap or crowd into one
 * part of the sum, d not a multiple of the block and more or fewer blocks than threads (ranges of unequal length),
 * the queue added into the sum in the middle of a batch, two rounds on the same sum; and where the ranges are cut.
 */
class SparseSumThreadsTest {
  private static final int ROUNDS = 2;

  static Stream<Arguments> settings() {
    SplittableRandom random = new SplittableRandom(20261126L);
    int[] workers = {1, 2, 7, 33};
    int[] dimensions = {1, 64, 1000, 64 * 37 + 5, 200_003};
    double[] densities = {0, 0.001, 0.05, 0.6, 1};
    int[] blocks = {64, 192, 1024, SparseSum.BLOCK};
    List<Arguments> cases = new ArrayList<>();
    for (int c = 0; c < 48; c++) {
      int d = dimensions[c % dimensions.length];
      int threads = 1 + c % 5;
      cases.add(Arguments.of(workers[random.nextInt(workers.length)], d,
          densities[random.nextInt(densities.length)], threads, blocks[random.nextInt(blocks.length)],
          random.nextBoolean() ? SparseSum.QUEUE : 1 + random.nextInt(Math.max(1, d / 4)), random.nextLong()));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "P={0} d={1} density={2} threads={3} block={4} queue={5}")
  @MethodSource("settings")
  void sumsBitForBitLikeOneThreadAndLikeDecodeThenAdd(int workers, int d, double density, int threads, int block,
      int queue, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    float[] serialSum = new float[d];
    float[] parallelSum = new float[d];
    SparseSum serial = new SparseSum(serialSum);
    SparseSum parallel = new SparseSum(parallelSum, threads, block, queue);
    for (int round = 0; round < ROUNDS; round++) {
      List<byte[]> uplinks = messages(workers, d, density, random);
      boolean divide = random.nextBoolean();
      Expected expected = decodeThenAdd(uplinks, d, divide);

      serial.begin();
      long serialNnz = 0;
      for (byte[] bytes : uplinks) {
        serialNnz += serial.add(bytes);
      }
      int[] serialUnion = divide ? serial.finishMean(workers) : serial.finish();

      parallel.begin();
      long parallelNnz = random.nextBoolean() ? parallel.addAll(uplinks) : addInTwoBatches(parallel, uplinks, random);
      int[] parallelUnion = divide ? parallel.finishMean(workers) : parallel.finish();

      String where = "round " + round;
      assertEquals(expected.nnz, serialNnz, where);
      assertEquals(expected.nnz, parallelNnz, where);
      assertArrayEquals(expected.union, serialUnion, where + ", the union on one thread");
      assertArrayEquals(expected.union, parallelUnion, where + ", the union on " + threads + " threads");
      assertArrayEquals(bits(expected.sum), bits(serialSum), where + ", the sum on one thread bit for bit");
      assertArrayEquals(bits(serialSum), bits(parallelSum), where + ", the sum on " + threads + " threads bit for bit");
    }
  }

  @Test
  void aDefectiveMessageInABatchQueuesThoseBeforeItAndTheRoundGoesOn() {
    int d = 5_000;
    SplittableRandom random = new SplittableRandom(5);
    List<byte[]> good = messages(6, d, 0.05, random);
    byte[] truncated = Arrays.copyOf(good.get(3), good.get(3).length - 1);
    byte[] otherDimension = SparseCodec.encode(SparseVector.of(d + 1, new int[] {d}, new float[] {1f}),
        ValueFormat.FP32);
    List<byte[]> batch = List.of(good.get(0), good.get(1), truncated, good.get(2), otherDimension);
    String defect = assertThrows(IllegalArgumentException.class, () -> SparseCodec.decode(truncated)).getMessage();
    for (int threads = 1; threads <= 5; threads++) {
      float[] sum = new float[d];
      SparseSum s = new SparseSum(sum, threads, 64, 1 + d / 20);
      s.begin();
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.addAll(batch));
      assertEquals(defect, e.getMessage(), "the first defect in message order");
      s.addAll(List.of(good.get(4), good.get(5)));
      int[] union = s.finish();
      Expected expected = decodeThenAdd(List.of(good.get(0), good.get(1), good.get(4), good.get(5)), d, false);
      assertArrayEquals(expected.union, union, threads + " threads");
      assertArrayEquals(bits(expected.sum), bits(sum), threads + " threads");
    }
  }

  @Test
  void aHeaderDefectAfterTheMessagesItFollowsIsReportedAfterThem() {
    int d = 300;
    List<byte[]> good = messages(2, d, 0.1, new SplittableRandom(8));
    byte[] otherDimension = SparseCodec.encode(SparseVector.of(d + 1, new int[] {d}, new float[] {1f}),
        ValueFormat.FP32);
    float[] sum = new float[d];
    SparseSum s = new SparseSum(sum, 3, 64, SparseSum.QUEUE);
    s.begin();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> s.addAll(List.of(good.get(0), good.get(1), otherDimension)));
    assertEquals("message of dimension " + (d + 1) + "; expected " + d, e.getMessage());
    Expected expected = decodeThenAdd(good, d, false);
    assertArrayEquals(expected.union, s.finish());
    assertArrayEquals(bits(expected.sum), bits(sum));
  }

  /**
   * Messages whose entries all lie in the first tenth of the sum: the ranges are cut so that each costs about a
   * quarter of the whole (its coordinates and {@link SparseSum#ENTRY_WEIGHT} per entry, counted here from the decoded
   * messages), within the cost of one block, instead of a quarter of the coordinates each.
   */
  @Test
  void cutsRangesOfAboutEqualCostWhenTheSupportsCrowd() {
    int block = 64;
    int d = block * 400;
    SplittableRandom random = new SplittableRandom(12);
    List<byte[]> crowded = new ArrayList<>();
    for (int w = 0; w < 8; w++) {
      int[] idx = IntStream.range(0, d / 10).filter(j -> random.nextBoolean()).toArray();
      float[] val = new float[idx.length];
      Arrays.fill(val, 1.5f);
      crowded.add(SparseCodec.encode(SparseVector.of(d, idx, val), ValueFormat.FP32));
    }
    long[] entriesPerBlock = new long[d / block];
    for (byte[] bytes : crowded) {
      for (int j : SparseCodec.decode(bytes).indices()) {
        entriesPerBlock[j / block]++;
      }
    }
    SparseSum s = new SparseSum(new float[d], 4, block, SparseSum.QUEUE);
    s.begin();
    s.addAll(crowded);
    s.finish();
    int[] bounds = s.rangeBounds();
    assertEquals(5, bounds.length);
    double[] cost = new double[4];
    double heaviestBlock = 0;
    for (int b = 0; b < entriesPerBlock.length; b++) {
      double c = block + (double) SparseSum.ENTRY_WEIGHT * entriesPerBlock[b];
      heaviestBlock = Math.max(heaviestBlock, c);
      int r = 0;
      while (b * block >= bounds[r + 1]) {
        r++;
      }
      cost[r] += c;
    }
    double quarter = Arrays.stream(cost).sum() / 4;
    for (int r = 0; r < 4; r++) {
      assertEquals(quarter, cost[r], heaviestBlock, "range " + r + " of " + Arrays.toString(bounds));
    }
    assertEquals(d, bounds[4]);
  }

  private static long addInTwoBatches(SparseSum s, List<byte[]> uplinks, SplittableRandom random) {
    int cut = random.nextInt(uplinks.size() + 1);
    return s.addAll(uplinks.subList(0, cut)) + s.addAll(uplinks.subList(cut, uplinks.size()));
  }

  private record Expected(float[] sum, int[] union, long nnz) {}

  /** The reference: every message decoded on its own, its entries added in message order, the union divided. */
  private static Expected decodeThenAdd(List<byte[]> uplinks, int d, boolean divide) {
    float[] sum = new float[d];
    boolean[] touched = new boolean[d];
    long nnz = 0;
    for (byte[] bytes : uplinks) {
      SparseVector u = SparseCodec.decode(bytes);
      nnz += u.nnz();
      for (int i = 0; i < u.nnz(); i++) {
        sum[u.index(i)] += u.value(i);
        touched[u.index(i)] = true;
      }
    }
    int[] union = IntStream.range(0, d).filter(j -> touched[j]).toArray();
    if (divide) {
      for (int j : union) {
        sum[j] = sum[j] / uplinks.size();
      }
    }
    return new Expected(sum, union, nnz);
  }

  /**
   * P messages: some empty, some a copy of the one before, the rest drawn from a support that covers all of d or
   * crowds into its first tenth, at about the density asked for; values of many magnitudes and both signs.
   */
  private static List<byte[]> messages(int workers, int d, double density, SplittableRandom random) {
    List<byte[]> out = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int kind = random.nextInt(8);
      if (kind == 0) {
        out.add(SparseCodec.encode(SparseVector.of(d, new int[0], new float[0]), ValueFormat.FP32));
        continue;
      }
      if (kind == 1 && !out.isEmpty()) {
        out.add(out.get(out.size() - 1));
        continue;
      }
      int span = kind == 2 ? Math.max(1, d / 10) : d;
      int[] idx = IntStream.range(0, span).filter(j -> random.nextDouble() < density).toArray();
      float[] val = new float[idx.length];
      for (int i = 0; i < idx.length; i++) {
        float magnitude = (float) (random.nextDouble() * Math.pow(10, random.nextInt(-6, 4)));
        val[i] = random.nextBoolean() ? magnitude : -magnitude;
      }
      ValueFormat format = random.nextInt(3) == 0 ? ValueFormat.FP16 : ValueFormat.FP32;
      out.add(SparseCodec.encode(SparseVector.of(d, idx, format.round(val)), format));
    }
    return out;
  }

  private static int[] bits(float[] x) {
    int[] out = new int[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = Float.floatToRawIntBits(x[i]);
    }
    return out;
  }
}
