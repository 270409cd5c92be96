package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LabeledImagesTest {
  @Test
  void sharesArraysAndSelectsRows() {
    float[] features = {0, 1, 10, 11, 20, 21};
    int[] labels = {2, 0, 2};
    LabeledImages images = LabeledImages.of(features, labels, 1, 1, 2, 3);
    assertSame(features, images.features());
    assertSame(labels, images.labels());
    assertEquals(3, images.count());
    assertEquals(2, images.featureLength());
    assertArrayEquals(new int[] {1, 0, 2}, images.labelHistogram());
    LabeledImages selected = images.select(new int[] {2, 0});
    assertArrayEquals(new float[] {20, 21, 0, 1}, selected.features());
    assertArrayEquals(new int[] {2, 2}, selected.labels());
    assertArrayEquals(new float[] {0f}, images.blackLevel());
  }

  @Test
  void rejectsInconsistentInputNamingTheValue() {
    assertMessage(() -> LabeledImages.of(new float[5], new int[2], 1, 1, 2, 3), "features.length=5");
    assertMessage(() -> LabeledImages.of(new float[4], new int[] {0, 3}, 1, 1, 2, 3), "labels[1]=3");
    assertMessage(() -> LabeledImages.of(new float[4], new int[] {0, -1}, 1, 1, 2, 3), "labels[1]=-1");
    assertMessage(() -> LabeledImages.of(new float[] {0, 0, Float.NaN, 0}, new int[2], 1, 1, 2, 3),
        "features[2]=NaN");
    assertMessage(() -> LabeledImages.of(new float[0], new int[0], 0, 1, 2, 3), "channels=0");
    assertMessage(() -> LabeledImages.of(new float[0], new int[0], 1, 1, 2, 0), "numClasses");
    assertMessage(() -> LabeledImages.of(new float[2], new int[1], 1, 1, 2, 3).select(new int[] {1}), "index 1");
    assertMessage(() -> Normalization.of(new float[] {0.5f}, new float[] {0f}), "std=0.0");
    assertMessage(() -> TrainTest.of(LabeledImages.of(new float[2], new int[1], 1, 1, 2, 3),
        LabeledImages.of(new float[2], new int[1], 1, 2, 1, 3)), "differ");
  }

  private static void assertMessage(org.junit.jupiter.api.function.Executable action, String part) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }
}
