package org.bitopk.job.problem.synthetic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.bitopk.compression.CompressionStep;
import org.bitopk.compression.Compressor;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.ErrorFeedback;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The synthetic gradients against brute force: supports found by sorting, overlaps counted coordinate by coordinate. */
class SyntheticGradientsTest {

  /** The k largest magnitudes of g, found by sorting all d coordinates. */
  private static Set<Integer> largestByBruteForce(float[] g, int k) {
    Integer[] order = IntStream.range(0, g.length).boxed().toArray(Integer[]::new);
    Arrays.sort(order, (a, b) -> Float.compare(Math.abs(g[b]), Math.abs(g[a])));
    return new HashSet<>(Arrays.asList(order).subList(0, k));
  }

  @ParameterizedTest(name = "d={0} P={1} k={2} overlap={3}")
  @CsvSource({"5000, 8, 50, 0", "5000, 8, 50, 0.5", "5000, 8, 50, 1", "4096, 5, 37, 0.3", "1000, 3, 100, 0.25"})
  void supportsOverlapAsConfigured(int d, int workers, int k, double overlap) {
    SyntheticGradients gradients = new SyntheticGradients(SyntheticGradientSetting.of(d, overlap, 0.001), workers, k,
        11);
    int shared = (int) Math.round(overlap * k);
    for (long round = 0; round < 3; round++) {
      Map<Integer, Integer> holders = new HashMap<>();
      float[] x = new float[d];
      for (int i = 0; i < workers; i++) {
        float[] g = new float[d];
        gradients.write(i, round, x, g);
        Set<Integer> top = largestByBruteForce(g, k);
        Set<Integer> declared = new HashSet<>();
        for (int j : gradients.support(i, round)) {
          declared.add(j);
        }
        assertEquals(k, declared.size(), "worker " + i + "'s support has k distinct coordinates");
        assertEquals(top, declared, "worker " + i + ", round " + round);
        top.forEach(j -> holders.merge(j, 1, Integer::sum));
      }
      long inAll = holders.values().stream().filter(n -> n == workers).count();
      long inOne = holders.values().stream().filter(n -> n == 1).count();
      assertEquals(workers == 1 ? k : shared, inAll, "coordinates every worker selected");
      assertEquals(workers == 1 ? k : (long) workers * (k - shared), inOne, "coordinates one worker selected");
      assertEquals(shared + (long) workers * (k - shared), holders.size(), "the union");
      assertEquals(holders.size(), gradients.unionSize());
    }
  }

  @Test
  void theSameAttemptGivesTheSameGradientAndRoundsDiffer() {
    SyntheticGradients a = new SyntheticGradients(SyntheticGradientSetting.of(3000, 0.5, 0.01), 4, 30, 5);
    SyntheticGradients b = new SyntheticGradients(SyntheticGradientSetting.of(3000, 0.5, 0.01), 4, 30, 5);
    float[] x = new float[3000];
    Arrays.fill(x, 0.5f);
    float[] first = new float[3000];
    float[] again = new float[3000];
    double loss = a.write(2, 7, x, first);
    assertEquals(loss, b.write(2, 7, x, again));
    assertArrayEquals(first, again);
    float[] nextRound = new float[3000];
    b.write(2, 8, x, nextRound);
    assertFalse(Arrays.equals(first, nextRound));
    assertFalse(Arrays.equals(a.support(2, 7), a.support(2, 8)));
    double dot = 0;
    for (int j = 0; j < x.length; j++) {
      dot += (double) first[j] * x[j];
    }
    assertEquals(dot, loss, 1e-9 * Math.abs(dot) + 1e-12, "the loss is <g, x>");
  }

  /**
   * Under error feedback with TopK (the workers' own ErrorFeedback.step), each round's message is exactly the declared
   * support for 60 rounds: the small entries' residual never catches up with a large entry, with a constant lr up to
   * noise 0.45, and with lr falling to a third (0.1 / (1 + ⌊t/20⌋)) at noise 0.15 < 1/6.
   */
  @ParameterizedTest(name = "noise {0}, lr decays {1}")
  @CsvSource({"0.45, false", "0.15, true"})
  void errorFeedbackSendsExactlyTheDeclaredSupportEveryRound(double noise, boolean decays) {
    int d = 2000;
    int k = 20;
    SyntheticGradients gradients = new SyntheticGradients(SyntheticGradientSetting.of(d, 0.5, noise), 3, k, 3);
    for (int worker = 0; worker < 3; worker++) {
      ErrorFeedback feedback = ErrorFeedback.enabled(d);
      Compressor topK = CompressorSpec.parse("topk").create(0);
      float[] x = new float[d];
      float[] g = new float[d];
      for (int round = 0; round < 60; round++) {
        gradients.write(worker, round, x, g);
        float lr = decays ? 0.1f / (1 + round / 20) : 0.1f;
        CompressionStep step = feedback.step(g, lr, topK, k);
        int[] sent = step.sent().indices();
        int[] declared = gradients.support(worker, round).clone();
        Arrays.sort(declared);
        assertArrayEquals(declared, sent, "worker " + worker + ", round " + round);
      }
    }
  }

  @Test
  void textsParseAndBadOnesAreNamed() {
    SyntheticGradientSetting s = SyntheticGradientSetting.parse("synthetic-gradients:d=25000000,overlap=0.5");
    assertEquals(25_000_000, s.dimension());
    assertEquals(0.5, s.overlap());
    assertEquals(s, SyntheticGradientSetting.parse(s.toString()));
    assertEquals(1_000_000, SyntheticGradientSetting.parse("synthetic-gradients").dimension());
    assertTrue(SyntheticGradientSetting.names("synthetic-gradients:d=5"));
    assertFalse(SyntheticGradientSetting.names("synthetic:n=5"));
    for (String[] bad : new String[][] {{"synthetic-gradients:overlap=1.5", "overlap=1.5"},
        {"synthetic-gradients:noise=0.5", "noise=0.5"}, {"synthetic-gradients:d=0", "d=0"},
        {"synthetic-gradients:k=3", "unknown key 'k'"}, {"synthetic-gradients:d=x", "'x' of key 'd'"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SyntheticGradientSetting.parse(bad[0]));
      assertTrue(e.getMessage().contains(bad[1]), e.getMessage());
    }
  }
}
