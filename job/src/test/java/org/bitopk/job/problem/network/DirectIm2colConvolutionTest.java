package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.IntUnaryOperator;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.convolution.Convolution;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The faster im2col against ND4J's own (called the way DL4J calls it), and whole networks with the substituted
 * layer against DL4J's: outputs, losses and gradients equal bit for bit, so swapping the layer cannot change a
 * run's numbers.
 */
class DirectIm2colConvolutionTest {
  private static INDArray images(long seed, int n, int channels, int h, int w) {
    Random r = new Random(seed);
    float[] v = new float[n * channels * h * w];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) r.nextGaussian();
    }
    return Nd4j.create(v, new long[] {n, channels, h, w}, 'c');
  }

  @ParameterizedTest(name = "{0}x{1}x{2}x{3}, kernel {4}x{5}, stride {6},{7}, pad {8},{9}, dilation {10}")
  @CsvSource({
      "10, 1, 28, 28, 5, 5, 1, 1, 2, 2, 1",
      "10, 16, 14, 14, 5, 5, 1, 1, 2, 2, 1",
      "3, 3, 9, 7, 3, 3, 2, 2, 1, 1, 1",
      "2, 4, 8, 11, 3, 2, 1, 3, 0, 1, 2",
      "1, 2, 5, 5, 5, 5, 1, 1, 0, 0, 1",
      "4, 1, 6, 6, 1, 1, 2, 1, 0, 0, 1",
      "2, 3, 5, 4, 2, 3, 1, 1, 3, 4, 1",
      "2, 2, 7, 7, 3, 3, 1, 2, 3, 2, 3"})
  void im2colEqualsNd4jsThroughDl4jsPermutedView(int n, int channels, int h, int w, int kH, int kW, int sH,
      int sW, int pH, int pW, int dilation) {
    INDArray input = images(n * 31L + channels, n, channels, h, w);
    int outH = (h + 2 * pH - (dilation * (kH - 1) + 1)) / sH + 1;
    int outW = (w + 2 * pW - (dilation * (kW - 1) + 1)) / sW + 1;
    INDArray expected = Nd4j.createUninitialized(DataType.FLOAT, new long[] {n, outH, outW, channels, kH, kW}, 'c');
    Convolution.im2col(input, kH, kW, sH, sW, pH, pW, dilation, dilation, false,
        expected.permute(0, 3, 4, 5, 1, 2));
    INDArray actual = DirectIm2colConvolution.im2col(input, outH, outW, kH, kW, new int[] {sH, sW},
        new int[] {pH, pW}, new int[] {dilation, dilation});
    assertArrayEquals(expected.shape(), actual.shape());
    assertArrayEquals(expected.stride(), actual.stride());
    assertArrayEquals(expected.data().asFloat(), actual.data().asFloat());
  }

  @Test
  void im2colReadsAViewAsItsValues() {
    INDArray base = images(3, 4, 2, 6, 6);
    INDArray view = base.permute(1, 0, 2, 3).dup('c').permute(1, 0, 2, 3);   // same values, other strides
    INDArray a = DirectIm2colConvolution.im2col(base, 6, 6, 3, 3, new int[] {1, 1}, new int[] {1, 1},
        new int[] {1, 1});
    INDArray b = DirectIm2colConvolution.im2col(view, 6, 6, 3, 3, new int[] {1, 1}, new int[] {1, 1},
        new int[] {1, 1});
    assertArrayEquals(a.data().asFloat(), b.data().asFloat());
  }

  private static MultiLayerConfiguration network(long seed, int channels, int h, int w, int kernel, int stride,
      int pad, int dilation, ConvolutionMode mode, boolean bias) {
    return new NeuralNetConfiguration.Builder().seed(seed).updater(new NoOp()).list()
        .layer(new ConvolutionLayer.Builder(kernel, kernel).stride(stride, stride).padding(pad, pad)
            .dilation(dilation, dilation).convolutionMode(mode).hasBias(bias).nOut(6)
            .activation(Activation.TANH).build())
        // the same geometry again: the second layer's input gradient (its col2im) reaches the first's weights
        .layer(new ConvolutionLayer.Builder(kernel, kernel).stride(stride, stride).padding(pad, pad)
            .dilation(dilation, dilation).convolutionMode(mode).hasBias(bias).nOut(4)
            .activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(5).activation(Activation.SOFTMAX)
            .build())
        .setInputType(InputType.convolutional(h, w, channels)).build();
  }

  @ParameterizedTest(name = "{0} channels {1}x{2}, kernel {3}, stride {4}, pad {5}, dilation {6}, {7}, bias {8}")
  @CsvSource({
      "1, 12, 12, 5, 1, 2, 1, Truncate, true",
      "3, 11, 9, 3, 2, 1, 1, Truncate, true",
      "2, 10, 10, 3, 1, 0, 2, Truncate, false",
      "2, 9, 13, 3, 2, 0, 1, Same, true",
      "1, 8, 8, 2, 1, 0, 1, Same, false"})
  void aNetworkWithTheLayerComputesDl4jsNumbersBitForBit(int channels, int h, int w, int kernel, int stride,
      int pad, int dilation, ConvolutionMode mode, boolean bias) {
    MultiLayerNetwork plain = new MultiLayerNetwork(network(7, channels, h, w, kernel, stride, pad, dilation, mode,
        bias));
    plain.init();
    MultiLayerNetwork direct = new MultiLayerNetwork(DirectIm2colConvolutionLayer.substitute(
        network(7, channels, h, w, kernel, stride, pad, dilation, mode, bias)));
    direct.init();
    assertSame(DirectIm2colConvolution.class, direct.getLayer(0).getClass());
    assertSame(DirectIm2colConvolution.class, direct.getLayer(1).getClass());
    assertArrayEquals(plain.params().toFloatVector(), direct.params().toFloatVector());

    INDArray x = images(11, 6, channels, h, w);
    INDArray labels = oneHot(6, 5, i -> i % 5);
    assertArrayEquals(plain.output(x, false).ravel().toFloatVector(), direct.output(x, false).ravel().toFloatVector());
    for (MultiLayerNetwork net : new MultiLayerNetwork[] {plain, direct}) {
      net.setInput(x);
      net.setLabels(labels);
      net.computeGradientAndScore();
    }
    assertEquals(plain.score(), direct.score());
    float[] g = plain.gradient().gradient().toFloatVector();
    assertArrayEquals(g, direct.gradient().gradient().toFloatVector());
    assertTrue(maxAbs(g) > 0, "a gradient of zeros would prove nothing");
  }

  /** The Fashion-MNIST CNN as the workers train it: ten steps of SGD, the same parameters bit for bit. */
  @Test
  void theFashionMnistCnnTrainsToTheSameBits() {
    MultiLayerNetwork plain = new MultiLayerNetwork(ModelArchitecture.CNN_BN.build(3, 1, 28, 28, 10));
    plain.init();
    MultiLayerNetwork direct = new MultiLayerNetwork(DirectIm2colConvolutionLayer.substitute(
        ModelArchitecture.CNN_BN.build(3, 1, 28, 28, 10)));
    direct.init();
    assertSame(DirectIm2colConvolution.class, direct.getLayer(0).getClass());
    for (int step = 0; step < 10; step++) {
      INDArray x = images(100 + step, 10, 1, 28, 28).reshape(10, 784);
      int shift = step;
      INDArray labels = oneHot(10, 10, i -> (i * 7 + shift) % 10);
      for (MultiLayerNetwork net : new MultiLayerNetwork[] {plain, direct}) {
        net.setInput(x);
        net.setLabels(labels);
        net.computeGradientAndScore();
        net.params().subi(net.gradient().gradient().mul(0.05));
      }
      assertEquals(plain.score(), direct.score(), "step " + step);
    }
    assertArrayEquals(plain.params().toFloatVector(), direct.params().toFloatVector());
  }

  /**
   * Dropout and weight noise draw from ND4J's random stream in the forward pass and are undone in the backward
   * pass (backpropDropOutIfPresent, the cached noisy weights); with the stream reseeded before each network the
   * two layers must draw the same numbers and compute the same gradient.
   */
  @Test
  void dropoutAndWeightNoiseGiveDl4jsGradientBitForBit() {
    float[][] gradients = new float[2][];
    double[] scores = new double[2];
    for (int n = 0; n < 2; n++) {
      MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(9).updater(new NoOp()).list()
          .layer(new ConvolutionLayer.Builder(3, 3).padding(1, 1).nOut(5).activation(Activation.TANH).build())
          .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).dropOut(0.7)
              .weightNoise(new org.deeplearning4j.nn.conf.weightnoise.WeightNoise(
                  new org.deeplearning4j.nn.conf.distribution.NormalDistribution(0, 0.05)))
              .activation(Activation.RELU).build())
          .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX)
              .build())
          .setInputType(InputType.convolutional(9, 9, 2)).build();
      MultiLayerNetwork net = new MultiLayerNetwork(n == 0 ? conf : DirectIm2colConvolutionLayer.substitute(conf));
      net.init();
      net.setInput(images(13, 4, 2, 9, 9));
      net.setLabels(oneHot(4, 3, i -> i % 3));
      Nd4j.getRandom().setSeed(77);
      net.computeGradientAndScore();
      gradients[n] = net.gradient().gradient().toFloatVector();
      scores[n] = net.score();
    }
    assertEquals(scores[0], scores[1]);
    assertArrayEquals(gradients[0], gradients[1]);
    assertTrue(maxAbs(gradients[0]) > 0, "a gradient of zeros would prove nothing");
  }

  @Test
  void substituteReplacesOnlyPlainNchwConvolutionsAndCopiesEveryField() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).dilation(2, 2).hasBias(false).build())
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(2).build())
        .layer(new OutputLayer.Builder().nOut(3).build())
        .setInputType(InputType.convolutional(12, 12, 1)).build();
    ConvolutionLayer first = (ConvolutionLayer) conf.getConf(0).getLayer();
    ConvolutionLayer nhwc = (ConvolutionLayer) conf.getConf(1).getLayer();
    nhwc.setCnn2dDataFormat(CNN2DFormat.NHWC);   // after the build: the input type would reset it
    Object output = conf.getConf(2).getLayer();
    DirectIm2colConvolutionLayer.substitute(conf);
    ConvolutionLayer replaced = (ConvolutionLayer) conf.getConf(0).getLayer();
    assertSame(DirectIm2colConvolutionLayer.class, replaced.getClass());
    assertNotSame(first, replaced);
    assertEquals(first, replaced);   // Lombok's equals over every field DL4J declares
    assertEquals(first.toString(), replaced.toString());   // Lombok's, over the superclasses' fields too
    assertSame(nhwc, conf.getConf(1).getLayer());
    assertSame(output, conf.getConf(2).getLayer());
  }

  /** Labels with row i's class {@code classOf(i)}. */
  private static INDArray oneHot(int rows, int classes, IntUnaryOperator classOf) {
    INDArray labels = Nd4j.zeros(DataType.FLOAT, rows, classes);
    for (int i = 0; i < rows; i++) {
      labels.putScalar(i, classOf.applyAsInt(i), 1f);
    }
    return labels;
  }

  private static double maxAbs(float[] v) {
    double m = 0;
    for (float f : v) {
      m = Math.max(m, Math.abs(f));
    }
    return m;
  }
}
