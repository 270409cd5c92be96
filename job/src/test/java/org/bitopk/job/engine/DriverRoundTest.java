package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The driver benchmark's round ({@link DriverRound}, what {@code DriverRoundBenchmark} times) at a tiny size against a
 * brute-force parameter server: the average summed in worker order, c = e_s + a, the k largest |c| found by sorting,
 * e_s = c − p, x = x − p; update, model and residual equal bit for bit over several rounds.
 */
class DriverRoundTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  @ParameterizedTest(name = "{0} aggregation threads")
  @ValueSource(ints = {1, 3})
  void theBenchmarkedRoundAggregatesLikeABruteForceServer(int threads) {
    int d = 3000;
    int workers = 5;
    int k = 40;
    float[] x = new float[d];
    float[] e = new float[d];
    try (DriverRound driver = DriverRound.create(SPARK.context(), SyntheticGradientSetting.of(d, 0.3, 0.001), workers,
        k, 9, 2, threads)) {
      assertEquals((long) workers * k, driver.receivedCoordinates());
      for (int t = 0; t < 5; t++) {
        List<SparseVector> uplinks = driver.uplinks(t);
        float[] c = new float[d];
        for (SparseVector u : uplinks) {
          for (int i = 0; i < u.nnz(); i++) {
            c[u.index(i)] += u.value(i);
          }
        }
        for (int j = 0; j < d; j++) {
          c[j] = c[j] / workers + e[j];
        }
        final float[] compensated = c;
        int[] top = IntStream.range(0, d).boxed()
            .sorted((a, b) -> Float.compare(Math.abs(compensated[b]), Math.abs(compensated[a])))
            .limit(k).mapToInt(Integer::intValue).sorted().toArray();
        float[] sent = new float[k];
        for (int i = 0; i < k; i++) {
          sent[i] = c[top[i]];
          c[top[i]] = 0;
          x[top[i]] -= sent[i];
        }
        e = c;
        ServerAggregator.Round round = driver.next();
        assertArrayEquals(top, round.update().indices(), "round " + t);
        assertArrayEquals(sent, round.update().values(), "round " + t);
        assertEquals(round.update(), SparseCodec.decode(round.encoded()));
        assertArrayEquals(x, driver.master(), "round " + t);
        assertArrayEquals(e, driver.residual(), "round " + t);
      }
      assertEquals(0.3, (double) Arrays.stream(driver.uplinks(0).get(0).indices()).filter(j -> Arrays.stream(
          driver.uplinks(0).get(1).indices()).anyMatch(i -> i == j)).count() / k, 1e-9, "shared fraction");
    }
  }
}
