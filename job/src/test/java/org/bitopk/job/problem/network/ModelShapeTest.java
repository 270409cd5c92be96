package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which image shapes a model takes, checked without building the network. The reference is the arithmetic of
 * the layers: the CNN's two unpadded 3×3 convolutions leave h − 4 rows, so it needs h ≥ 5; the padded CNN-BN
 * and the "same"-mode VGG never shrink an image to nothing; the MLPs take any flattened image.
 */
class ModelShapeTest {

  @ParameterizedTest(name = "{0} on {1}x{2}x{3}: fits {4}")
  @CsvSource({
      "cnn, 1, 4, 4, false",
      "cnn, 1, 4, 9, false",
      "cnn, 1, 5, 5, true",
      "cnn, 3, 28, 28, true",
      "cnn-bn, 1, 1, 1, true",
      "vgg19-bn, 3, 2, 2, true",
      "mlp, 1, 1, 1, true",
      "mlp-small, 3, 32, 32, true"})
  void modelsTakeTheShapesTheirLayersAllow(String model, int channels, int height, int width, boolean fits) {
    ModelArchitecture architecture = ModelArchitecture.parse(model);
    if (fits) {
      architecture.checkFits(channels, height, width, 10);
    } else {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> architecture.checkFits(channels, height, width, 10));
      assertTrue(e.getMessage().contains("ConvolutionLayer") && e.getMessage().contains("empty"), e.getMessage());
    }
  }
}
