package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupPlacement#rebalanced} against brute force: for every placement of S ≤ 6 groups on up to 4 executors
 * (some no longer live), the result holds ⌊S/E⌋ or ⌈S/E⌉ groups per live executor and moves exactly as few groups
 * as the best of all balanced placements, found by trying each.
 */
class RebalancedPlacementTest {
  private static final List<String> ALL = List.of("executor_a_1", "executor_b_2", "executor_c_3", "executor_d_4");

  @Test
  void balancedWithTheFewestMoves() {
    int cases = 0;
    for (int groups = 1; groups <= 6; groups++) {
      for (int liveCount = 1; liveCount <= 3; liveCount++) {
        List<String> live = ALL.subList(0, liveCount);
        // each group on one of the 4 executors (the fourth, and those past liveCount, are gone) or on none
        int options = ALL.size() + 1;
        for (int code = 0; code < Math.pow(options, groups); code++) {
          List<String> current = new ArrayList<>();
          for (int g = 0, c = code; g < groups; g++, c /= options) {
            current.add(c % options == ALL.size() ? null : ALL.get(c % options));
          }
          List<String> onLive = current.stream().map(e -> e != null && live.contains(e) ? e : null).toList();
          GroupPlacement placed = GroupPlacement.rebalanced(onLive, live);
          List<String> target = placed.assignment();
          assertTrue(balanced(target, live), current + " -> " + target);
          assertEquals(fewestMoves(current, live, groups), moves(current, target), current + " -> " + target);
          for (List<Integer> wave : placed.waves(groups)) {
            assertEquals(wave.size(), wave.stream().map(target::get).distinct().count(), "wave " + wave);
          }
          assertEquals(groups, placed.waves(groups).stream().mapToInt(List::size).sum());
          cases++;
        }
      }
    }
    assertTrue(cases > 10_000, cases + " cases");
  }

  @Test
  void anUnchangedBalancedPlacementStays() {
    List<String> current = List.of("executor_a_1", "executor_b_2", "executor_a_1", "executor_b_2");
    assertEquals(current, GroupPlacement.rebalanced(current, ALL.subList(0, 2)).assignment());
    // a third executor arrives: one group of each of the first two... one group moves to it, no more
    List<String> spread = GroupPlacement.rebalanced(current, ALL.subList(0, 3)).assignment();
    assertEquals(1, moves(current, spread), spread.toString());
  }

  private static boolean balanced(List<String> target, List<String> live) {
    int groups = target.size();
    for (String e : live) {
      long n = target.stream().filter(e::equals).count();
      if (n != groups / live.size() && n != (groups + live.size() - 1) / live.size()) {
        return false;
      }
    }
    return target.stream().allMatch(live::contains);
  }

  private static int moves(List<String> from, List<String> to) {
    int n = 0;
    for (int g = 0; g < from.size(); g++) {
      n += to.get(g).equals(from.get(g)) ? 0 : 1;
    }
    return n;
  }

  /** Tries every assignment of the groups to the live executors. */
  private static int fewestMoves(List<String> current, List<String> live, int groups) {
    int best = Integer.MAX_VALUE;
    int[] choice = new int[groups];
    for (int code = 0; code < Math.pow(live.size(), groups); code++) {
      for (int g = 0, c = code; g < groups; g++, c /= live.size()) {
        choice[g] = c % live.size();
      }
      List<String> target = Arrays.stream(choice).mapToObj(live::get).toList();
      if (balanced(target, live)) {
        best = Math.min(best, moves(current, target));
      }
    }
    return best;
  }
}
