package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServerAggregatorTest {
  /** Uplinks with small-integer values: float sums are exact, so a double reference must match exactly. */
  private static List<SparseVector> uplinks(int workers, int dimension, int k, long seed) {
    Random random = new Random(seed);
    List<SparseVector> out = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int[] idx = random.ints(0, dimension).distinct().limit(k).sorted().toArray();
      float[] val = new float[k];
      for (int i = 0; i < k; i++) {
        val[i] = random.nextInt(201) - 100;
      }
      out.add(SparseVector.of(dimension, idx, val));
    }
    return out;
  }

  private static List<WorkerReport> reports(List<SparseVector> uplinks, float[][] statistics) {
    List<WorkerReport> out = new ArrayList<>();
    for (int w = 0; w < uplinks.size(); w++) {
      SparseVector u = uplinks.get(w);
      out.add(new WorkerReport.Builder(w, 0, "local").message(SparseCodec.encode(u, ValueFormat.FP32),
          statistics == null ? new float[0] : statistics[w], 1.0, new UplinkMemory.Step(u, 1, u.nnz(), 0, 0)).build());
    }
    return out;
  }

  private static double[] average(List<SparseVector> uplinks, int dimension) {
    double[] a = new double[dimension];
    for (SparseVector u : uplinks) {
      for (int i = 0; i < u.nnz(); i++) {
        a[u.index(i)] += u.value(i);
      }
    }
    for (int j = 0; j < dimension; j++) {
      a[j] /= uplinks.size();
    }
    return a;
  }

  @ParameterizedTest
  @CsvSource({"2, 50, 5", "4, 1000, 30", "8, 500, 60"})
  void unidirectionalBroadcastsTheExactAverageOverTheUnionOfSupports(int workers, int dimension, int k) {
    List<SparseVector> ups = uplinks(workers, dimension, k, dimension);
    ServerAggregator server = new ServerAggregator(dimension, workers, new int[0], ServerUplinkMemory.NONE,
        DownlinkStrategies.average().open(dimension, 1), 1);
    ServerAggregator.Round round = server.aggregate(reports(ups, null));
    TreeSet<Integer> union = new TreeSet<>();
    ups.forEach(u -> IntStream.of(u.indices()).forEach(union::add));
    double[] expected = average(ups, dimension);
    assertEquals(union.size(), round.aggregateNnz());
    assertArrayEquals(union.stream().mapToInt(Integer::intValue).toArray(), round.update().indices());
    for (int i = 0; i < round.update().nnz(); i++) {
      assertEquals((float) expected[round.update().index(i)], round.update().value(i));
    }
    assertEquals((long) workers * k, round.upNnz());
    assertArrayEquals(round.encoded(), SparseCodec.encode(round.update(), ValueFormat.FP32));
  }

  @ParameterizedTest
  @CsvSource({"3, 100, 4, 1", "4, 2000, 40, 20", "8, 2000, 20, 10"})
  void bidirectionalSendsTheTopKOfAveragePlusServerResidualAndKeepsTheRest(int workers, int dimension, int k,
      int downK) {
    ServerAggregator server = new ServerAggregator(dimension, workers, new int[0], ServerUplinkMemory.NONE,
        DownlinkStrategies.compressed(CompressorSpec.parse("topk"), downK).open(dimension, 1), 2);
    double[] residual = new double[dimension];
    for (int round = 0; round < 3; round++) {
      List<SparseVector> ups = uplinks(workers, dimension, k, 31L * round + dimension);
      double[] a = average(ups, dimension);
      double[] c = new double[dimension];
      for (int j = 0; j < dimension; j++) {
        c[j] = a[j] + residual[j];
      }
      ServerAggregator.Round r = server.aggregate(reports(ups, null));
      assertEquals(downK, r.update().nnz());
      // Every sent |c_j| is at least every unsent |c_j| (TopK by magnitude).
      double smallestSent = Double.POSITIVE_INFINITY;
      boolean[] sent = new boolean[dimension];
      for (int i = 0; i < r.update().nnz(); i++) {
        int j = r.update().index(i);
        sent[j] = true;
        assertEquals(c[j], r.update().value(i), 1e-4 * Math.max(1, Math.abs(c[j])));
        smallestSent = Math.min(smallestSent, Math.abs(c[j]));
      }
      for (int j = 0; j < dimension; j++) {
        if (!sent[j]) {
          assertTrue(Math.abs(c[j]) <= smallestSent + 1e-4, "unsent |c_" + j + "| exceeds a sent one");
        }
      }
      float[] e = server.residual();
      for (int j = 0; j < dimension; j++) {
        residual[j] = sent[j] ? 0 : c[j];
        assertEquals(residual[j], e[j], 1e-4 * Math.max(1, Math.abs(c[j])));
      }
      double deltaDown = 0;
      double norm = 0;
      for (int j = 0; j < dimension; j++) {
        deltaDown += residual[j] * residual[j];
        norm += c[j] * c[j];
      }
      assertEquals(Math.sqrt(deltaDown / norm), r.deltaDown(), 1e-5);
    }
  }

  @ParameterizedTest
  @CsvSource({"2, true", "4, false"})
  void runningStatisticsAreAveragedDenselyAndAddedUncompressed(int workers, boolean bidirectional) {
    int dimension = 40;
    int[] statistics = {3, 17, 39};
    List<SparseVector> ups = new ArrayList<>();
    float[][] stats = new float[workers][];
    for (int w = 0; w < workers; w++) {
      // Uplinks never carry statistics coordinates (workers zero them before compression).
      ups.add(SparseVector.of(dimension, new int[] {5 + w, 25 + w}, new float[] {w + 1, -(w + 1)}));
      stats[w] = new float[] {w, 2f * w, -4f};
    }
    ServerAggregator server = new ServerAggregator(dimension, workers, statistics, ServerUplinkMemory.NONE,
        (bidirectional ? DownlinkStrategies.compressed(CompressorSpec.parse("topk"), 2) : DownlinkStrategies.average())
            .open(dimension, 1), 3);
    ServerAggregator.Round r = server.aggregate(reports(ups, stats));
    float[] dense = r.update().toDense();
    double mean = IntStream.range(0, workers).average().orElseThrow();
    assertEquals((float) mean, dense[3]);
    assertEquals((float) (2 * mean), dense[17]);
    assertEquals(-4f, dense[39]);
    int compressed = bidirectional ? 2 : 2 * workers;
    assertEquals(compressed + statistics.length, r.update().nnz());
    assertEquals(compressed, r.downNnz(), "down_nnz counts the downlink's selection only");
    assertEquals(statistics.length, r.statistics());
    assertTrue(IntStream.of(r.update().indices()).boxed().sorted(Comparator.naturalOrder()).toList()
        .equals(IntStream.of(r.update().indices()).boxed().toList()));
  }
}
