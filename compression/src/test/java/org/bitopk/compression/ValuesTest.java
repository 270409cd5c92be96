package org.bitopk.compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The value classes: Selection, SparseVector, Density. */
class ValuesTest {

  @ParameterizedTest(name = "density={0} d={1} -> k={2}")
  @CsvSource({"0.001, 242762, 242", "0.001, 1000000, 1000", "0.01, 50, 1", "1.0, 7, 7", "0.29, 100, 29",
      "1e-9, 10, 1", "0.5, 1, 1", "0.999, 1000, 999", "0.07, 100, 7"})
  void densityRoundsDownWithMinimumOne(double density, int d, int k) {
    assertEquals(k, Density.targetK(density, d));
  }

  @Test
  void densityRejectsOutOfRange() {
    assertEquals("density = 0.0 is out of range; expected 0 < density <= 1",
        assertThrows(IllegalArgumentException.class, () -> Density.targetK(0, 10)).getMessage());
    assertEquals("density = 1.5 is out of range; expected 0 < density <= 1",
        assertThrows(IllegalArgumentException.class, () -> Density.targetK(1.5, 10)).getMessage());
    assertEquals("density = NaN is out of range; expected 0 < density <= 1",
        assertThrows(IllegalArgumentException.class, () -> Density.targetK(Double.NaN, 10)).getMessage());
    assertEquals("dimension = 0 is out of range; expected dimension >= 1",
        assertThrows(IllegalArgumentException.class, () -> Density.targetK(0.5, 0)).getMessage());
  }

  @Test
  void selectionValidatesAndCopies() {
    int[] idx = {0, 3, 9};
    Selection s = Selection.of(idx, 5);
    idx[0] = 7;
    assertArrayEquals(new int[] {0, 3, 9}, s.indices());
    s.indices()[1] = 100;
    assertArrayEquals(new int[] {0, 3, 9}, s.indices());
    assertEquals(3, s.achievedK());
    assertEquals(5, s.targetK());
    assertEquals(0.6, s.achievedRatio(), 1e-12);
    assertEquals("index[2] = 3 is not greater than index[1] = 3; expected strictly ascending indices",
        assertThrows(IllegalArgumentException.class, () -> Selection.of(new int[] {1, 3, 3}, 1)).getMessage());
    assertEquals("index[0] = -1 is negative; expected indices >= 0",
        assertThrows(IllegalArgumentException.class, () -> Selection.of(new int[] {-1}, 1)).getMessage());
    assertEquals("targetK = 0 is out of range; expected targetK >= 1",
        assertThrows(IllegalArgumentException.class, () -> Selection.of(new int[] {1}, 0)).getMessage());
  }

  @Test
  void sparseVectorValidatesGathersAndAdds() throws Exception {
    SparseVector v = SparseVector.of(6, new int[] {1, 4}, new float[] {2f, -0.5f});
    assertEquals(6, v.dimension());
    assertEquals(2, v.nnz());
    assertEquals(4, v.index(1));
    assertEquals(-0.5f, v.value(1));
    assertArrayEquals(new float[] {0, 2, 0, 0, -0.5f, 0}, v.toDense());
    float[] dense = {1, 1, 1, 1, 1, 1};
    v.addTo(dense, -2f);
    assertArrayEquals(new float[] {1, -3, 1, 1, 2, 1}, dense);
    assertEquals(v, SparseVector.gather(new float[] {9, 2, 9, 9, -0.5f, 9}, Selection.of(new int[] {1, 4}, 2)));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(v);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertEquals(v, in.readObject());
    }

    assertEquals("index[1] = 1 is not greater than index[0] = 2; expected strictly ascending indices",
        assertThrows(IllegalArgumentException.class,
            () -> SparseVector.of(5, new int[] {2, 1}, new float[] {1, 1})).getMessage());
    assertEquals("index[1] = 5 is out of range; expected 0 <= index < 5",
        assertThrows(IllegalArgumentException.class,
            () -> SparseVector.of(5, new int[] {2, 5}, new float[] {1, 1})).getMessage());
    assertEquals("value[0] = Infinity at index 2 is not finite; expected finite values",
        assertThrows(IllegalArgumentException.class,
            () -> SparseVector.of(5, new int[] {2}, new float[] {Float.POSITIVE_INFINITY})).getMessage());
    assertEquals("indices length 1 does not match values length 2; expected equal lengths",
        assertThrows(IllegalArgumentException.class,
            () -> SparseVector.of(5, new int[] {2}, new float[] {1, 2})).getMessage());
    assertEquals("dimension = 0 is out of range; expected dimension >= 1",
        assertThrows(IllegalArgumentException.class,
            () -> SparseVector.of(0, new int[0], new float[0])).getMessage());
    assertEquals("dense length 3 does not match dimension 6",
        assertThrows(IllegalArgumentException.class, () -> v.addTo(new float[3], 1f)).getMessage());
    assertEquals("selection index 7 is out of range; expected indices < 6 (the dimension)",
        assertThrows(IllegalArgumentException.class,
            () -> SparseVector.gather(new float[6], Selection.of(new int[] {7}, 1))).getMessage());
  }
}
