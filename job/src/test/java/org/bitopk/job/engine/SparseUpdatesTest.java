package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.bitopk.compression.SparseVector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SparseUpdatesTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 7, 100, 10_000})
  void subtractsEveryStoredCoordinateAndNothingElse(int dimension) {
    Random random = new Random(dimension);
    float[] x = new float[dimension];
    for (int j = 0; j < dimension; j++) {
      x[j] = (float) random.nextGaussian();
    }
    int nnz = Math.max(1, dimension / 10);
    int[] indices = random.ints(0, dimension).distinct().limit(nnz).sorted().toArray();
    float[] values = new float[indices.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) random.nextGaussian();
    }
    float[] expected = x.clone();
    for (int i = 0; i < indices.length; i++) {
      expected[indices[i]] = (float) ((double) expected[indices[i]] - values[i]); // exact: float - float rounded once
    }
    SparseUpdates.apply(x, SparseVector.of(dimension, indices, values));
    assertArrayEquals(expected, x);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 100})
  void equalUpdatesGiveBitIdenticalReplicas(int dimension) {
    Random random = new Random(7);
    float[] a = new float[dimension];
    for (int j = 0; j < dimension; j++) {
      a[j] = random.nextFloat();
    }
    float[] b = a.clone();
    for (int step = 0; step < 50; step++) {
      int[] idx = random.ints(0, dimension).distinct().limit(1 + dimension / 3).sorted().toArray();
      float[] val = new float[idx.length];
      for (int i = 0; i < val.length; i++) {
        val[i] = (float) (random.nextGaussian() * 1e-3);
      }
      SparseVector u = SparseVector.of(dimension, idx, val);
      SparseUpdates.apply(a, u);
      SparseUpdates.apply(b, u);
    }
    assertEquals(ParameterChecksum.of(a), ParameterChecksum.of(b));
    b[dimension - 1] = Math.nextUp(b[dimension - 1]);
    assertTrue(ParameterChecksum.of(a) != ParameterChecksum.of(b), "one ulp must change the checksum");
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 5})
  void rejectsAnUpdateOfAnotherDimension(int dimension) {
    SparseVector u = SparseVector.of(dimension + 1, new int[] {0}, new float[] {1f});
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SparseUpdates.apply(new float[dimension], u));
    assertTrue(e.getMessage().contains(Integer.toString(dimension + 1)));
  }

  private static void assertEquals(long a, long b) {
    org.junit.jupiter.api.Assertions.assertEquals(a, b);
  }
}
