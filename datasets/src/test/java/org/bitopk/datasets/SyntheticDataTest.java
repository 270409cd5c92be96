package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SyntheticDataTest {
  @Test
  void defaultsAndCanonicalText() {
    SyntheticData d = SyntheticData.parse("synthetic");
    assertEquals("synthetic:n=2000,test=500,classes=10,shape=1x28x28,noise=1.0,seed=0", d.toString());
    assertEquals(d, SyntheticData.parse(d.toString()));
    SyntheticData custom = SyntheticData.parse("synthetic:n=300,classes=3,shape=3x8x4,noise=0.5,seed=-7,test=30");
    assertEquals(300, custom.trainCount());
    assertEquals(30, custom.testCount());
    assertEquals(3, custom.channels());
    assertEquals(8, custom.height());
    assertEquals(4, custom.width());
    assertEquals(0.5, custom.noise());
    assertEquals(-7, custom.seed());
    assertEquals(custom, SyntheticData.parse(custom.toString()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"synthetic:n=0", "synthetic:size=3", "synthetic:shape=28x28", "synthetic:n=abc",
      "synthetic:classes=1", "synthetic:noise=-1", "synthetic:n", "synthetic:", "synth"})
  void badTextsAreRejectedNamingTheProblem(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SyntheticData.parse(text));
    assertFalse(e.getMessage().isEmpty());
    assertTrue(e.getMessage().contains("synth"), e.getMessage());
  }

  @Test
  void loadedThroughDatasetsDeterministicallyWithBalancedLabels() {
    TrainTest a = Datasets.load("synthetic:n=1000,test=200,classes=4,shape=2x3x3,seed=5", null, new Configuration());
    TrainTest b = Datasets.load("synthetic:n=1000,test=200,classes=4,shape=2x3x3,seed=5", null, null);
    assertArrayEquals(a.train().features(), b.train().features());
    assertArrayEquals(a.test().labels(), b.test().labels());
    assertArrayEquals(new int[] {250, 250, 250, 250}, a.train().labelHistogram());
    assertArrayEquals(new int[] {50, 50, 50, 50}, a.test().labelHistogram());
    assertEquals(18, a.train().featureLength());
    TrainTest other = Datasets.load("synthetic:n=1000,test=200,classes=4,shape=2x3x3,seed=6", null, null);
    assertFalse(Arrays.equals(a.train().features(), other.train().features()));
    assertThrows(IllegalArgumentException.class, () -> Datasets.load("synthetic", "/tmp", null));
  }

  /** Learnable: a nearest-class-mean classifier fitted on the training part classifies the test part. */
  @Test
  void isLearnable() {
    TrainTest data = SyntheticData.builder().trainCount(2000).testCount(500).noise(3.0).seed(1).build().generate();
    int length = data.train().featureLength();
    double[][] means = new double[10][length];
    int[] counts = data.train().labelHistogram();
    for (int i = 0; i < data.train().count(); i++) {
      int label = data.train().labels()[i];
      for (int k = 0; k < length; k++) {
        means[label][k] += data.train().features()[i * length + k] / counts[label];
      }
    }
    int correct = 0;
    for (int i = 0; i < data.test().count(); i++) {
      int best = -1;
      double bestDistance = Double.MAX_VALUE;
      for (int c = 0; c < 10; c++) {
        double distance = 0;
        for (int k = 0; k < length; k++) {
          double d = data.test().features()[i * length + k] - means[c][k];
          distance += d * d;
        }
        if (distance < bestDistance) {
          bestDistance = distance;
          best = c;
        }
      }
      correct += best == data.test().labels()[i] ? 1 : 0;
    }
    assertTrue(correct > 0.9 * data.test().count(), correct + " of " + data.test().count());
    // Unit variance by construction.
    double sum = 0;
    double squares = 0;
    for (float f : data.train().features()) {
      sum += f;
      squares += f * f;
    }
    int n = data.train().features().length;
    assertEquals(1.0, squares / n - (sum / n) * (sum / n), 0.1);
  }

  @Test
  void unknownNameListsTheChoices() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Datasets.load("imagenet", null, null));
    assertTrue(e.getMessage().contains("imagenet") && e.getMessage().contains("fashion-mnist")
        && e.getMessage().contains("cifar10"), e.getMessage());
    IllegalArgumentException noPath = assertThrows(IllegalArgumentException.class,
        () -> Datasets.load("mnist", null, null));
    assertTrue(noPath.getMessage().contains("--data"), noPath.getMessage());
  }
}
