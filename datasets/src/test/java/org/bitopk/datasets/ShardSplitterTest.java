package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ShardSplitterTest {
  /** 2000 examples, 200 per class, balanced but in shuffled order. */
  private static final LabeledImages DATA =
      SyntheticData.builder().trainCount(2000).testCount(10).shape(1, 2, 3).seed(11).build().generate().train();

  @ParameterizedTest(name = "P={0}")
  @ValueSource(ints = {1, 7, 100})
  void iidIsDisjointCompleteAndDeterministic(int workers) {
    int[][] indices = ShardSplitter.iidIndices(DATA.count(), workers, 3);
    int size = DATA.count() / workers;
    Set<Integer> seen = new HashSet<>();
    for (int[] worker : indices) {
      assertEquals(size, worker.length);
      for (int index : worker) {
        assertTrue(seen.add(index), "index " + index + " appears twice");
        assertTrue(index >= 0 && index < DATA.count());
      }
    }
    assertEquals(workers * size, seen.size());
    assertTrue(Arrays.deepEquals(indices, ShardSplitter.iidIndices(DATA.count(), workers, 3)));
    if (workers > 1) {
      assertFalse(Arrays.deepEquals(indices, ShardSplitter.iidIndices(DATA.count(), workers, 4)));
    }
    checkShardsHoldTheirExamples(ShardSplitter.iid(DATA, workers, 3), indices);
  }

  @ParameterizedTest(name = "P={0}")
  @ValueSource(ints = {1, 7, 100})
  void nonIidIsDisjointCompleteAndDeterministic(int workers) {
    int[][] indices = ShardSplitter.nonIidIndices(DATA.labels(), 10, workers, 3);
    int shardSize = DATA.count() / (2 * workers);
    Set<Integer> seen = new HashSet<>();
    for (int[] worker : indices) {
      assertEquals(2 * shardSize, worker.length);
      for (int index : worker) {
        assertTrue(seen.add(index), "index " + index + " appears twice");
      }
    }
    assertEquals(2 * workers * shardSize, seen.size());
    assertTrue(Arrays.deepEquals(indices, ShardSplitter.nonIidIndices(DATA.labels(), 10, workers, 3)));
    if (workers > 1) {
      assertFalse(Arrays.deepEquals(indices, ShardSplitter.nonIidIndices(DATA.labels(), 10, workers, 4)));
    }
    checkShardsHoldTheirExamples(ShardSplitter.nonIid(DATA, workers, 3), indices);
  }

  /**
   * When 2P divides n, nothing is dropped, and each worker's examples must be exactly the union of two of the
   * 2P consecutive pieces of a stable sort by label (computed here with the JDK's stable sort), each piece
   * used once.
   */
  @ParameterizedTest(name = "P={0}")
  @ValueSource(ints = {1, 5, 10, 50, 100, 8})
  void nonIidMatchesStableSortShards(int workers) {
    List<Integer> order = new ArrayList<>();
    IntStream.range(0, DATA.count()).forEach(order::add);
    order.sort(Comparator.comparingInt(i -> DATA.labels()[i])); // List.sort is stable
    int shardSize = DATA.count() / (2 * workers);
    Map<Integer, Integer> pieceOf = new HashMap<>();
    for (int position = 0; position < order.size(); position++) {
      pieceOf.put(order.get(position), position / shardSize);
    }
    Set<Integer> piecesUsed = new HashSet<>();
    for (int[] worker : ShardSplitter.nonIidIndices(DATA.labels(), 10, workers, 77)) {
      Map<Integer, Integer> perPiece = new HashMap<>();
      for (int index : worker) {
        perPiece.merge(pieceOf.get(index), 1, Integer::sum);
      }
      assertEquals(2, perPiece.size(), "a worker holds two whole pieces");
      for (Map.Entry<Integer, Integer> piece : perPiece.entrySet()) {
        assertEquals(shardSize, piece.getValue());
        assertTrue(piecesUsed.add(piece.getKey()), "piece " + piece.getKey() + " given twice");
      }
    }
    assertEquals(2 * workers, piecesUsed.size());
  }

  /** 200 examples per class: with shard size dividing 200, each worker sees at most two labels. */
  @ParameterizedTest(name = "P={0}")
  @ValueSource(ints = {5, 10, 20, 50, 100})
  void nonIidWorkersSeeAtMostTwoLabels(int workers) {
    for (int[] histogram : ShardSplitter.labelHistograms(ShardSplitter.nonIid(DATA, workers, 5))) {
      long labels = Arrays.stream(histogram).filter(c -> c > 0).count();
      assertTrue(labels >= 1 && labels <= 2, Arrays.toString(histogram));
    }
  }

  /** IID: every worker's histogram is close to the global proportions (hypergeometric sd about 9.5 here). */
  @Test
  void iidHistogramsAreBalanced() {
    LabeledImages data =
        SyntheticData.builder().trainCount(10_000).testCount(10).shape(1, 1, 2).seed(2).build().generate().train();
    int[][] histograms = ShardSplitter.labelHistograms(ShardSplitter.iid(data, 10, 9));
    int[] total = new int[10];
    for (int[] histogram : histograms) {
      for (int label = 0; label < 10; label++) {
        assertTrue(Math.abs(histogram[label] - 100) <= 40, Arrays.toString(histogram));
        total[label] += histogram[label];
      }
    }
    assertArrayEquals(data.labelHistogram(), total);
    // The non-IID split of the same data is far from balanced: the check above can fail.
    int[][] skewed = ShardSplitter.labelHistograms(ShardSplitter.nonIid(data, 10, 9));
    assertTrue(Arrays.stream(skewed).anyMatch(h -> Arrays.stream(h).anyMatch(c -> Math.abs(c - 100) > 40)));
  }

  @ParameterizedTest(name = "nonIid={0}")
  @ValueSource(booleans = {false, true})
  void oneShardIsTheFullSplitsShardValueForValue(boolean nonIid) {
    int workers = 7;
    List<WorkerShard> all = nonIid ? ShardSplitter.nonIid(DATA, workers, 5) : ShardSplitter.iid(DATA, workers, 5);
    for (int w = 0; w < workers; w++) {
      WorkerShard one = ShardSplitter.shard(DATA, workers, nonIid, 5, w);
      assertEquals(w, one.workerId());
      assertArrayEquals(all.get(w).data().features(), one.data().features(), "features of worker " + w);
      assertArrayEquals(all.get(w).data().labels(), one.data().labels(), "labels of worker " + w);
    }
    assertThrows(IllegalArgumentException.class, () -> ShardSplitter.shard(DATA, workers, nonIid, 5, workers));
  }

  @Test
  void tooManyWorkersIsRejected() {
    LabeledImages small =
        SyntheticData.builder().trainCount(9).testCount(1).shape(1, 1, 1).build().generate().train();
    IllegalArgumentException iid = assertThrows(IllegalArgumentException.class,
        () -> ShardSplitter.iid(small, 10, 1));
    assertTrue(iid.getMessage().contains("workers=10") && iid.getMessage().contains("only 9 examples"),
        iid.getMessage());
    assertEquals(9, ShardSplitter.iid(small, 9, 1).size());
    IllegalArgumentException nonIid = assertThrows(IllegalArgumentException.class,
        () -> ShardSplitter.nonIid(small, 5, 1));
    assertTrue(nonIid.getMessage().contains("workers=5"), nonIid.getMessage());
    assertEquals(4, ShardSplitter.nonIid(small, 4, 1).size());
    assertThrows(IllegalArgumentException.class, () -> ShardSplitter.iid(small, 0, 1));
  }

  private static void checkShardsHoldTheirExamples(List<WorkerShard> shards, int[][] indices) {
    assertEquals(indices.length, shards.size());
    int length = DATA.featureLength();
    for (int w = 0; w < shards.size(); w++) {
      WorkerShard shard = shards.get(w);
      assertEquals(w, shard.workerId());
      int[] histogram = new int[10];
      for (int i = 0; i < indices[w].length; i++) {
        int index = indices[w][i];
        assertEquals(DATA.labels()[index], shard.data().labels()[i]);
        histogram[DATA.labels()[index]]++;
        assertArrayEquals(Arrays.copyOfRange(DATA.features(), index * length, (index + 1) * length),
            Arrays.copyOfRange(shard.data().features(), i * length, (i + 1) * length));
      }
      assertArrayEquals(histogram, shard.labelHistogram());
    }
  }
}
