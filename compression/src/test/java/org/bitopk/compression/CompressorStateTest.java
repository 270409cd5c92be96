package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** saveState / restoreState for every compressor text. */
class CompressorStateTest {

  private static final int D = 20_000;
  private static final int K = 20;
  private static final long SEED = 17;
  /** Varying inputs (a different vector per call), like the rounds of a run. */
  private static final float[][] INPUTS = new float[24][];

  static {
    for (int i = 0; i < INPUTS.length; i++) {
      INPUTS[i] = Vectors.gaussian(D, 1000 + i);
    }
  }

  /** Compressors whose selection depends on the current input only. */
  private static final Set<String> STATELESS = Set.of("topk", "topk:strict", "gaussiank", "sidco-e:stages=1", "sidco-gp:stages=3",
      "sidco-gamma-gp:stages=2", "threshold:tau=2.5", "none");

  private static List<int[]> run(Compressor c, int from, int calls) {
    List<int[]> out = new ArrayList<>();
    for (int i = from; i < from + calls; i++) {
      out.add(c.select(INPUTS[i % INPUTS.length], K).indices());
    }
    return out;
  }

  private static void assertSameSelections(List<int[]> expected, List<int[]> actual) {
    assertEquals(expected.size(), actual.size());
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), "call " + i);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"topk", "topk:strict", "gaussiank", "sidco-e", "sidco-e:stages=adaptive", "sidco-gp", "sidco-gamma-gp",
      "sidco-e:stages=1", "sidco-gp:stages=3", "sidco-gamma-gp:stages=2", "dgc", "randomk", "threshold:tau=2.5",
      "none", "randomk:scaled", "natural"})
  void restoringReplaysTheSameSelectionsOnTheSameAndOnAFreshInstance(String text) {
    CompressorSpec spec = CompressorSpec.parse(text);
    Compressor original = spec.create(SEED);
    run(original, 0, 7); // some history: adaptive SIDCo has changed its stage count by now
    byte[] state = original.saveState();
    List<int[]> first = run(original, 7, 16);

    original.restoreState(state);
    assertSameSelections(first, run(original, 7, 16));

    Compressor fresh = spec.create(SEED);
    fresh.restoreState(state);
    assertSameSelections(first, run(fresh, 7, 16));
    assertArrayEquals(original.saveState(), fresh.saveState());

    assertEquals(STATELESS.contains(text), state.length == 0, text + " state has " + state.length + " bytes");
  }

  @Test
  void theStateMatters() {
    // Without the restore, a fresh instance of a stateful compressor selects differently: the tests above would
    // catch a restore that does nothing.
    for (String text : new String[] {"randomk", "dgc", "sidco-e"}) {
      Compressor original = CompressorSpec.parse(text).create(SEED);
      run(original, 0, 7);
      List<int[]> continued = run(original, 7, 8);
      List<int[]> restarted = run(CompressorSpec.parse(text).create(SEED), 7, 8);
      boolean differs = false;
      for (int i = 0; i < continued.size(); i++) {
        differs |= !Arrays.equals(continued.get(i), restarted.get(i));
      }
      assertTrue(differs, text);
    }
  }

  @Test
  void randomKCallsAreAFunctionOfSeedAndCallIndex() {
    // Call i of seed s is the same whatever the earlier calls asked for (k and d of earlier calls do not shift
    // the stream), and different seeds give different selections.
    Compressor a = CompressorSpec.parse("randomk").create(5);
    Compressor b = CompressorSpec.parse("randomk").create(5);
    a.select(new float[100], 3);
    b.select(new float[50_000], 4_000);
    assertArrayEquals(a.select(INPUTS[0], K).indices(), b.select(INPUTS[0], K).indices());
    assertFalse(Arrays.equals(CompressorSpec.parse("randomk").create(5).select(INPUTS[0], K).indices(),
        CompressorSpec.parse("randomk").create(6).select(INPUTS[0], K).indices()));
  }

  @Test
  void aFailedCallLeavesTheStateUnchanged() {
    for (String text : new String[] {"randomk", "dgc", "sidco-e"}) {
      Compressor c = CompressorSpec.parse(text).create(SEED);
      run(c, 0, 3);
      byte[] before = c.saveState();
      float[] bad = INPUTS[0].clone();
      bad[123] = Float.NaN;
      assertThrows(IllegalArgumentException.class, () -> c.select(bad, K));
      assertArrayEquals(before, c.saveState(), text);
    }
  }

  @Test
  void badStatesAreRefusedWithOneClearMessage() {
    Compressor randomK = CompressorSpec.parse("randomk").create(SEED);
    randomK.select(INPUTS[0], K);
    byte[] good = randomK.saveState();

    byte[] flipped = good.clone();
    flipped[good.length - 6] ^= 1;
    assertRefused(randomK, flipped, "compressor state for 'randomk' is damaged (checksum mismatch); expected the "
        + "bytes saveState() of a 'randomk' compressor returned");
    assertRefused(randomK, Arrays.copyOf(good, 5), "compressor state for 'randomk' has 5 bytes, too few "
        + "to be a saved state; expected the bytes saveState() of a 'randomk' compressor returned");
    assertRefused(randomK, null, "compressor state for 'randomk' is null; expected the bytes saveState() of a "
        + "'randomk' compressor returned");
    assertRefused(randomK, new byte[0], "compressor state for 'randomk' has 0 bytes, too few to be a saved state; "
        + "expected the bytes saveState() of a 'randomk' compressor returned");

    Compressor dgc = CompressorSpec.parse("dgc").create(SEED);
    assertRefused(dgc, good, "compressor state was saved by 'randomk', not by 'dgc'; restore a state into the kind "
        + "of compressor that saved it");
    assertRefused(CompressorSpec.parse("randomk").create(SEED + 1), good, "compressor state for 'randomk' was "
        + "saved with seed 17, this instance has seed 18; restore into an instance created with the same seed");

    Compressor topK = CompressorSpec.parse("topk").create(SEED);
    assertRefused(topK, good, "compressor 'topk' keeps no state between calls; expected an empty state, got "
        + good.length + " bytes");
    assertRefused(topK, null, "compressor state for 'topk' is null; expected the bytes saveState() returned (empty "
        + "for 'topk')");
    Compressor sidcoAdaptive = CompressorSpec.parse("sidco-e").create(SEED);
    assertRefused(sidcoAdaptive, CompressorSpec.parse("sidco-gp").create(SEED).saveState(), "compressor state was "
        + "saved by 'sidco-gp', not by 'sidco-e'; restore a state into the kind of compressor that saved it");
    assertRefused(sidcoAdaptive, CompressorState.write("sidco-e", 0, 0, 0), "compressor state for 'sidco-e' is out "
        + "of range: stages 0, ratio sum 0.0, calls 0; expected stages in [1, 32], a finite ratio sum >= 0 and "
        + "calls in [0, 5)");
    assertRefused(sidcoAdaptive, CompressorState.write("sidco-e", 1, 0), "compressor state for 'sidco-e' is "
        + "malformed; expected the bytes saveState() of a 'sidco-e' compressor returned");
  }

  private static void assertRefused(Compressor c, byte[] state, String message) {
    byte[] before = c.saveState();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.restoreState(state));
    assertEquals(message, e.getMessage());
    assertArrayEquals(before, c.saveState(), "a refused state leaves the current one");
  }
}
