package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkerShardTest {
  /** Example i has every feature equal to i, so a minibatch row tells which example it is. */
  private static WorkerShard indexedShard(int count, int workerId) {
    int length = 3 * 4 * 5;
    float[] features = new float[count * length];
    int[] labels = new int[count];
    for (int i = 0; i < count; i++) {
      Arrays.fill(features, i * length, (i + 1) * length, i);
      labels[i] = i % 10;
    }
    return WorkerShard.of(workerId, LabeledImages.of(features, labels, 3, 4, 5, 10));
  }

  @Test
  void anEpochVisitsDistinctExamplesAndDropsThePartialBatch() {
    WorkerShard shard = indexedShard(103, 2);
    assertEquals(10, shard.batchesPerEpoch(10));
    Set<Integer> seen = new HashSet<>();
    for (int b = 0; b < 10; b++) {
      Minibatch batch = shard.minibatch(4, b, 10, 123, false);
      assertEquals(10, batch.size());
      assertEquals(600, batch.features().length);
      for (int j = 0; j < 10; j++) {
        int example = (int) batch.features()[j * 60];
        assertEquals(example % 10, batch.labels()[j]);
        for (int k = 0; k < 60; k++) {
          assertEquals(example, batch.features()[j * 60 + k]);
        }
        assertTrue(seen.add(example), "example " + example + " twice in one epoch");
      }
    }
    assertEquals(100, seen.size());
  }

  @Test
  void deterministicForSeedAndDifferentAcrossEpochsSeedsAndWorkers() {
    WorkerShard shard = indexedShard(50, 0);
    Minibatch a = shard.minibatch(1, 2, 8, 7, false);
    Minibatch again = indexedShard(50, 0).minibatch(1, 2, 8, 7, false);
    assertArrayEquals(a.features(), again.features());
    assertArrayEquals(a.labels(), again.labels());
    assertFalse(Arrays.equals(a.features(), shard.minibatch(2, 2, 8, 7, false).features()));
    assertFalse(Arrays.equals(a.features(), shard.minibatch(1, 2, 8, 8, false).features()));
    assertFalse(Arrays.equals(a.features(), indexedShard(50, 1).minibatch(1, 2, 8, 7, false).features()));
    // Asking for another epoch in between does not change the answer (the cache is only a cache).
    assertArrayEquals(a.features(), shard.minibatch(1, 2, 8, 7, false).features());
  }

  @Test
  void invalidArgumentsAreRejected() {
    WorkerShard shard = indexedShard(20, 0);
    assertThrows(IllegalArgumentException.class, () -> shard.minibatch(0, 2, 10, 1, false));
    assertThrows(IllegalArgumentException.class, () -> shard.minibatch(0, -1, 10, 1, false));
    assertThrows(IllegalArgumentException.class, () -> shard.minibatch(-1, 0, 10, 1, false));
    IllegalArgumentException tooLarge =
        assertThrows(IllegalArgumentException.class, () -> shard.minibatch(0, 0, 21, 1, false));
    assertTrue(tooLarge.getMessage().contains("batchSize=21") && tooLarge.getMessage().contains("20 examples"),
        tooLarge.getMessage());
    IllegalArgumentException badIndex =
        assertThrows(IllegalArgumentException.class, () -> shard.minibatch(0, 4, 5, 1, false));
    assertTrue(badIndex.getMessage().contains("batchIndex=4") && badIndex.getMessage().contains("expected 0..3"),
        badIndex.getMessage());
    assertThrows(IllegalArgumentException.class, () -> shard.batchesPerEpoch(0));
    assertThrows(IllegalArgumentException.class, () -> WorkerShard.of(-1, shard.data()));
  }

  /** Values c*100 + y*10 + x on a 2x5x6 image make every moved pixel identifiable. */
  private static float[] knownImage() {
    float[] image = new float[2 * 5 * 6];
    for (int c = 0; c < 2; c++) {
      for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 6; x++) {
          image[c * 30 + y * 6 + x] = c * 100 + y * 10 + x;
        }
      }
    }
    return image;
  }

  @Test
  void cropAndFlipMoveExactlyTheExpectedPixels() {
    float[] image = knownImage();
    float[] black = {-1f, -2f};
    float[] out = new float[image.length];
    int pad = Augmentation.PAD;
    // Centre crop, no flip: identity.
    Augmentation.cropFlip(image, 0, out, 0, 2, 5, 6, black, pad, pad, false);
    assertArrayEquals(image, out);
    // Window one row down (dy = pad + 1): row y shows source row y + 1, the last row is padding.
    Augmentation.cropFlip(image, 0, out, 0, 2, 5, 6, black, pad + 1, pad, false);
    for (int c = 0; c < 2; c++) {
      for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 6; x++) {
          float expected = y + 1 < 5 ? c * 100 + (y + 1) * 10 + x : black[c];
          assertEquals(expected, out[c * 30 + y * 6 + x], "c=" + c + " y=" + y + " x=" + x);
        }
      }
    }
    // Window at the far left (dx = 0): column x shows source column x - 4; columns 0..3 are padding.
    Augmentation.cropFlip(image, 0, out, 0, 2, 5, 6, black, pad, 0, false);
    assertEquals(black[0], out[3]);
    assertEquals(0f, out[4]);
    assertEquals(1f, out[5]);
    assertEquals(black[1], out[30 + 6 * 2 + 3]);
    assertEquals(120f, out[30 + 6 * 2 + 4]);
    // Centre crop with flip: mirrored rows.
    Augmentation.cropFlip(image, 0, out, 0, 2, 5, 6, black, pad, pad, true);
    for (int c = 0; c < 2; c++) {
      for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 6; x++) {
          assertEquals(c * 100 + y * 10 + (5 - x), out[c * 30 + y * 6 + x]);
        }
      }
    }
    // Crop then flip, as torchvision orders them: flip of the window shifted right by 2 (dx = pad + 2).
    Augmentation.cropFlip(image, 0, out, 0, 2, 5, 6, black, pad, pad + 2, true);
    for (int x = 0; x < 6; x++) {
      int source = (5 - x) + 2;
      assertEquals(source < 6 ? source : black[0], out[x], "x=" + x);
    }
  }

  /**
   * Augmented minibatches: deterministic for a seed, and every example is one of the 9·9·2 crop/flip variants
   * of its source image (found by brute force), with both flips and several offsets occurring.
   */
  @Test
  void augmentedMinibatchIsASeededCropFlipOfEachSource() {
    int count = 64;
    float[] features = new float[count * 60];
    for (int i = 0; i < count; i++) {
      float[] image = knownImage();
      for (int k = 0; k < 60; k++) {
        features[i * 60 + k] = image[k] + 1000 * i;
      }
    }
    int[] labels = new int[count];
    float[] black = {-5f, -6f};
    WorkerShard shard = WorkerShard.of(0, LabeledImages.of(features, labels, 2, 5, 6, 10, black));
    Minibatch batch = shard.minibatch(3, 1, 32, 99, true);
    assertArrayEquals(batch.features(), shard.minibatch(3, 1, 32, 99, true).features());
    assertFalse(Arrays.equals(batch.features(), shard.minibatch(3, 1, 32, 100, true).features()));
    Minibatch plain = shard.minibatch(3, 1, 32, 99, false);
    Set<String> variants = new HashSet<>();
    float[] candidate = new float[60];
    for (int j = 0; j < 32; j++) {
      int source = Math.round(plain.features()[j * 60 + 2 * 6 + 3] / 1000f) ;
      float[] out = Arrays.copyOfRange(batch.features(), j * 60, (j + 1) * 60);
      String match = null;
      for (int dy = 0; dy <= 8 && match == null; dy++) {
        for (int dx = 0; dx <= 8 && match == null; dx++) {
          for (boolean flip : new boolean[] {false, true}) {
            Augmentation.cropFlip(features, source * 60, candidate, 0, 2, 5, 6, black, dy, dx, flip);
            if (Arrays.equals(candidate, out)) {
              match = dy + "," + dx + "," + flip;
              break;
            }
          }
        }
      }
      assertTrue(match != null, "example " + j + " is no crop/flip of source " + source);
      variants.add(match);
    }
    assertTrue(variants.size() > 10, "offsets vary: " + variants);
    assertTrue(variants.stream().anyMatch(v -> v.endsWith("true")) && variants.stream().anyMatch(v -> v.endsWith(
        "false")), "both flips occur: " + variants);
  }
}
