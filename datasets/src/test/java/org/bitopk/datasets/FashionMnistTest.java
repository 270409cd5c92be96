package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real Fashion-MNIST from the Debian package {@code dataset-fashion-mnist} (installed by the CI script).
 * Pinned values were computed independently of this code, from the raw bytes:
 * {@code zcat train-images-idx3-ubyte.gz | python3} over bytes 16..800 (CRC-32 4067475125, byte sum 76247),
 * and the first label byte (9, ankle boot).
 */
class FashionMnistTest {
  private static final String DIR = Datasets.FASHION_MNIST_DEFAULT;
  private static TrainTest data;

  @BeforeAll
  static void load() {
    assertTrue(DataFile.isFile(new Path(DIR, "train-images-idx3-ubyte.gz"), new Configuration()),
        "Fashion-MNIST is missing: apt-get install dataset-fashion-mnist");
    data = Datasets.load("fashion-mnist", null, new Configuration());
  }

  @Test
  void countsAndBalancedLabels() {
    assertEquals(60_000, data.train().count());
    assertEquals(10_000, data.test().count());
    int[] trainHistogram = new int[10];
    Arrays.fill(trainHistogram, 6_000);
    int[] testHistogram = new int[10];
    Arrays.fill(testHistogram, 1_000);
    assertArrayEquals(trainHistogram, data.train().labelHistogram());
    assertArrayEquals(testHistogram, data.test().labelHistogram());
    assertEquals(1, data.train().channels());
    assertEquals(28, data.train().height());
    assertEquals(28, data.train().width());
    assertEquals(10, data.train().numClasses());
  }

  @Test
  void firstImageMatchesIndependentChecksumAndIsNormalised() {
    IdxFormat.Images raw = IdxFormat.readImages(new Path(DIR, "train-images-idx3-ubyte.gz"), new Configuration());
    CRC32 crc = new CRC32();
    crc.update(raw.pixels, 0, 784);
    assertEquals(4067475125L, crc.getValue());
    long sum = 0;
    for (int i = 0; i < 784; i++) {
      sum += raw.pixels[i] & 0xff;
    }
    assertEquals(76247, sum);
    assertEquals(9, data.train().labels()[0]);
    float[] features = data.train().features();
    for (int i = 0; i < 784; i++) {
      double expected = ((raw.pixels[i] & 0xff) / 255.0 - 0.2860) / 0.3530;
      assertEquals(expected, features[i], 1e-5, "pixel " + i);
    }
  }

  /** The constants 0.2860 / 0.3530 are the training set's pixel mean and standard deviation. */
  @Test
  void normalisationConstantsAreTheTrainingSetStatistics() {
    IdxFormat.Images raw = IdxFormat.readImages(new Path(DIR, "train-images-idx3-ubyte.gz"), new Configuration());
    double sum = 0;
    double sumSquares = 0;
    for (byte b : raw.pixels) {
      double v = (b & 0xff) / 255.0;
      sum += v;
      sumSquares += v * v;
    }
    double mean = sum / raw.pixels.length;
    double std = Math.sqrt(sumSquares / raw.pixels.length - mean * mean);
    assertEquals(0.2860, mean, 5e-5);
    assertEquals(0.3530, std, 5e-5);
    assertEquals(mean, Normalization.FASHION_MNIST.mean()[0], 5e-5);
    assertEquals(std, Normalization.FASHION_MNIST.std()[0], 5e-5);
    // After normalisation the loaded training features have mean ~0 and std ~1.
    double fsum = 0;
    double fsq = 0;
    for (float f : data.train().features()) {
      fsum += f;
      fsq += (double) f * f;
    }
    double n = data.train().features().length;
    assertEquals(0.0, fsum / n, 2e-4);
    assertEquals(1.0, Math.sqrt(fsq / n - (fsum / n) * (fsum / n)), 2e-4);
  }

  /** The papers' non-IID split: P = 100, 200 shards of 300 images, every worker at most 2 labels. */
  @Test
  void papersNonIidSplit() {
    List<WorkerShard> shards = ShardSplitter.nonIid(data.train(), 100, 42);
    assertEquals(100, shards.size());
    Set<Integer> labelsSeen = new HashSet<>();
    for (WorkerShard shard : shards) {
      assertEquals(600, shard.data().count());
      int[] histogram = shard.labelHistogram();
      int present = 0;
      for (int label = 0; label < 10; label++) {
        if (histogram[label] > 0) {
          present++;
          labelsSeen.add(label);
          assertEquals(0, histogram[label] % 300, "shards are whole: " + Arrays.toString(histogram));
        }
      }
      assertTrue(present <= 2, Arrays.toString(histogram));
    }
    assertEquals(10, labelsSeen.size());
  }
}
