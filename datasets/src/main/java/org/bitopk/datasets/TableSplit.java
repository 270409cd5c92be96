package org.bitopk.datasets;

import org.jspecify.annotations.Nullable;

/**
 * The role of every row of a table, decided on the driver from the row count (and, for the non-IID split,
 * the training labels) alone: held out for testing, dropped, or owned by worker i. The worker split applies
 * {@link ShardSplitter}'s rules to the training rows in table order, so a table holding the examples of an
 * IDX file in file order is split exactly as the file is.
 *
 * <p>The table costs 4 bytes per row; the Spark job broadcasts it once and each executor looks up the rows
 * of its partitions in it, so the examples themselves never pass through the driver.
 */
public final class TableSplit {
  public static final int DROPPED = -1;
  public static final int TEST = -2;
  private static final long TEST_STREAM = 0x74657374L;

  private TableSplit() {}

  /** Rows held out for testing: the first {@code round(fraction · total)} entries of a seeded permutation. */
  public static boolean[] testRows(int total, int testCount, long seed) {
    boolean[] test = new boolean[total];
    int[] order = Seeds.permutation(total, Seeds.mix(seed, TEST_STREAM));
    for (int i = 0; i < testCount; i++) {
      test[order[i]] = true;
    }
    return test;
  }

  /** {@code round(fraction · total)}. */
  public static int testCount(int total, double fraction) {
    return (int) Math.round(fraction * total);
  }

  /**
   * @param test held-out rows, or null when every row trains
   * @param trainLabels for non-IID: the class index of every training row, in row order; else null
   * @return per row: {@link #TEST}, {@link #DROPPED} or the worker id
   */
  public static int[] roles(int total, boolean @Nullable [] test, int workers, boolean nonIid,
      int @Nullable [] trainLabels, int numClasses, long seed) {
    int[] roles = new int[total];
    int[] trainRows = new int[total];
    int n = 0;
    for (int r = 0; r < total; r++) {
      if (test != null && test[r]) {
        roles[r] = TEST;
      } else {
        roles[r] = DROPPED;
        trainRows[n++] = r;
      }
    }
    int[][] indices = nonIid
        ? ShardSplitter.nonIidIndices(trainLabels, numClasses, workers, seed)
        : ShardSplitter.iidIndices(n, workers, seed);
    for (int w = 0; w < indices.length; w++) {
      for (int i : indices[w]) {
        roles[trainRows[i]] = w;
      }
    }
    return roles;
  }
}
