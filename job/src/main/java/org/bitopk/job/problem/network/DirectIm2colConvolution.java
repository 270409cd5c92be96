package org.bitopk.job.problem.network;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.ConvolutionLayer;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.shape.Shape;
import org.nd4j.linalg.convolution.Convolution;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DL4J's convolution layer with a faster im2col. DL4J multiplies the im2col matrix, rows (example, output row,
 * output column) by columns (channel, kernel row, kernel column), by the weights; to get it it lets ND4J's
 * im2col write through a permuted view of that matrix, and ND4J's strided writes made this one step cost
 * 23 ms of the Fashion-MNIST CNN's 86 ms worker step (its second convolution, a minibatch of 10). Here the
 * same matrix is filled in Java in its own order and copied to ND4J in one piece. The backward pass reuses
 * it, and computes the input gradient's matrix product with {@code Nd4j.gemm} into a preallocated array, about
 * twice as fast as DL4J's {@code mmul} for the same bits. Every other operation is DL4J's own, on arrays of the
 * same shapes and strides, so the layer's output and gradients are DL4J's bit for bit
 * ({@code DirectIm2colConvolutionTest}).
 *
 * <p>Only the common case takes this path: float data in NCHW and no cuDNN/oneDNN helper; anything else is
 * DL4J's own code.
 */
final class DirectIm2colConvolution extends ConvolutionLayer {
  private static final long serialVersionUID = 1L;

  DirectIm2colConvolution(NeuralNetConfiguration conf, DataType dataType) {
    super(conf, dataType);
  }

  /**
   * Whether this input takes the direct path. Anything else goes to DL4J's code: other formats, types and
   * helpers, and a missing or wrongly shaped input too, for DL4J's own error message.
   */
  private boolean direct() {
    return helper == null && layerConf().getCnn2dDataFormat() == CNN2DFormat.NCHW && dataType == DataType.FLOAT
        && input != null && input.rank() == 4;
  }

  @Override
  protected Pair<INDArray, INDArray> preOutput(boolean training, boolean forBackprop,
      LayerWorkspaceMgr workspaceMgr) {
    if (!direct()) {
      return super.preOutput(training, forBackprop, workspaceMgr);
    }
    INDArray bias = getParamWithNoise(ConvolutionParamInitializer.BIAS_KEY, training, workspaceMgr);
    INDArray weights = getParamWithNoise(ConvolutionParamInitializer.WEIGHT_KEY, training, workspaceMgr);
    INDArray input = this.input.castTo(dataType);
    long miniBatch = input.size(0);
    long outDepth = weights.size(0);
    long inDepth = weights.size(1);
    validateInputDepth(inDepth);
    int kH = (int) weights.size(2);
    int kW = (int) weights.size(3);
    Geometry g = geometry(input);
    if (preOutput != null && i2d != null && forBackprop) {
      return new Pair<>(preOutput, i2d);
    }

    INDArray col = im2col(input, g.outH, g.outW, kH, kW, g.strides, g.pad, g.dilation);
    // from here on DL4J's ConvolutionLayer.preOutput (1.0.0-M2.1), unchanged
    INDArray im2col2d = Shape.newShapeNoCopy(col, new long[] {miniBatch * g.outH * g.outW, inDepth * kH * kW},
        false);
    INDArray permutedW = weights.permute(3, 2, 1, 0);
    INDArray reshapedW = permutedW.reshape('f', (long) kW * kH * inDepth, outDepth);
    INDArray z = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, weights.dataType(),
        new long[] {im2col2d.size(0), reshapedW.size(1)}, 'f');
    im2col2d.mmuli(reshapedW, z);
    if (layerConf().hasBias()) {
      z.addiRowVector(bias);
    }
    z = Shape.newShapeNoCopy(z, new long[] {g.outW, g.outH, miniBatch, outDepth}, true);
    z = z.permute(2, 3, 1, 0);
    if (training && cacheMode != CacheMode.NONE && workspaceMgr.hasConfiguration(ArrayType.FF_CACHE)
        && workspaceMgr.isWorkspaceOpen(ArrayType.FF_CACHE)) {
      try (MemoryWorkspace ws = workspaceMgr.notifyScopeBorrowed(ArrayType.FF_CACHE)) {
        i2d = im2col2d.unsafeDuplication();
      }
    }
    return new Pair<>(z, forBackprop ? im2col2d : null);
  }

  /**
   * DL4J's {@code ConvolutionLayer.backpropGradient} (1.0.0-M2.1) without its helper branch (the guard sends
   * helpers to it), with one step replaced: the input gradient's product {@code w2d · delta2d} goes into a
   * preallocated f-order array through {@code Nd4j.gemm} instead of {@code mmul}, which allocates the same
   * array and took about twice as long for the same bits.
   */
  @Override
  public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
    if (!direct()) {
      return super.backpropGradient(epsilon, workspaceMgr);
    }
    INDArray weights = getParamWithNoise(ConvolutionParamInitializer.WEIGHT_KEY, true, workspaceMgr);
    getParamWithNoise(ConvolutionParamInitializer.BIAS_KEY, true, workspaceMgr);   // as DL4J: weight noise's cache
    INDArray input = this.input.castTo(dataType);
    if (epsilon.dataType() != dataType) {
      epsilon = epsilon.castTo(dataType);
    }
    int miniBatch = (int) input.size(0);
    int inH = (int) input.size(2);
    int inW = (int) input.size(3);
    long outDepth = weights.size(0);
    int inDepth = (int) weights.size(1);
    int kH = (int) weights.size(2);
    int kW = (int) weights.size(3);
    Geometry g = geometry(input);

    INDArray biasGradView = gradientViews.get(ConvolutionParamInitializer.BIAS_KEY);
    INDArray weightGradView = gradientViews.get(ConvolutionParamInitializer.WEIGHT_KEY);
    INDArray weightGradView2df = Shape
        .newShapeNoCopy(weightGradView, new long[] {outDepth, (long) inDepth * kH * kW}, false).transpose();
    Pair<INDArray, INDArray> p = preOutput4d(true, true, workspaceMgr);
    INDArray delta = layerConf().getActivationFn().backprop(p.getFirst(), epsilon).getFirst();
    delta = delta.permute(1, 0, 2, 3);
    INDArray delta2d = delta.reshape('c', new long[] {outDepth, (long) miniBatch * g.outH * g.outW});
    INDArray im2col2d = p.getSecond();   // this class's preOutput returns it whenever forBackprop is set
    Nd4j.gemm(im2col2d, delta2d, weightGradView2df, true, true, 1.0, 0.0);

    INDArray w2d = weights.permute(3, 2, 1, 0).reshape('f', (long) inDepth * kH * kW, outDepth);
    // DL4J: w2d.mmul(delta2d), whose result is an f-order array of this shape; gemm into one is faster
    INDArray epsNext2d = Nd4j.createUninitialized(dataType,
        new long[] {(long) inDepth * kH * kW, (long) miniBatch * g.outH * g.outW}, 'f');
    Nd4j.gemm(w2d, delta2d, epsNext2d, false, false, 1.0, 0.0);
    INDArray eps6d = Shape.newShapeNoCopy(epsNext2d, new long[] {kW, kH, inDepth, g.outW, g.outH, miniBatch}, true)
        .permute(5, 2, 1, 0, 4, 3);
    INDArray epsNextOrig = workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, eps6d.dataType(),
        new long[] {inDepth, miniBatch, inH, inW}, 'c');
    INDArray epsNext = epsNextOrig.permute(1, 0, 2, 3);
    Convolution.col2im(eps6d, epsNext, g.strides[0], g.strides[1], g.pad[0], g.pad[1], inH, inW, g.dilation[0],
        g.dilation[1]);

    Gradient retGradient = new DefaultGradient();
    if (layerConf().hasBias()) {
      delta2d.sum(biasGradView, 1);
      retGradient.setGradientFor(ConvolutionParamInitializer.BIAS_KEY, biasGradView);
    }
    retGradient.setGradientFor(ConvolutionParamInitializer.WEIGHT_KEY, weightGradView, 'c');
    weightNoiseParams.clear();
    epsNext = backpropDropOutIfPresent(epsNext);
    return new Pair<>(retGradient, epsNext);
  }

  /** Output size and top-left padding as DL4J derives them (its {@code getOutputSize} also validates). */
  private Geometry geometry(INDArray input) {
    org.deeplearning4j.nn.conf.layers.ConvolutionLayer c = layerConf();
    int[] dilation = c.getDilation();
    int[] kernel = c.getKernelSize();
    int[] strides = c.getStride();
    int[] pad;
    int[] outSize;
    if (convolutionMode == ConvolutionMode.Same) {
      outSize = ConvolutionUtils.getOutputSize(input, kernel, strides, null, convolutionMode, dilation,
          CNN2DFormat.NCHW);
      pad = ConvolutionUtils.getSameModeTopLeftPadding(outSize,
          new int[] {(int) input.size(2), (int) input.size(3)}, kernel, strides, dilation);
    } else {
      pad = c.getPadding();
      outSize = ConvolutionUtils.getOutputSize(input, kernel, strides, pad, convolutionMode, dilation,
          CNN2DFormat.NCHW);
    }
    return new Geometry(outSize[0], outSize[1], strides, pad, dilation);
  }

  private record Geometry(int outH, int outW, int[] strides, int[] pad, int[] dilation) {
  }

  /**
   * The im2col array DL4J builds, {@code [miniBatch, outH, outW, inDepth, kH, kW]} in c order: entry
   * (b, oh, ow, c, i, j) is input (b, c, oh·sH − pH + i·dH, ow·sW − pW + j·dW), 0 outside the image (ND4J's
   * im2col, as DL4J calls it, has the same definition). Built in a Java array, where the kernel rows that fall
   * inside the image are contiguous runs of the input row (one {@code arraycopy} each at dilation 1) and the
   * rest stays zero, then written into ND4J's memory in one bulk copy ({@code Nd4j.create} from an array costs
   * several times that).
   */
  static INDArray im2col(INDArray input, int outH, int outW, int kH, int kW, int[] strides, int[] pad,
      int[] dilation) {
    int n = (int) input.size(0);
    int channels = (int) input.size(1);
    int h = (int) input.size(2);
    int w = (int) input.size(3);
    float[] in = input.reshape('c', new long[] {input.length()}).toFloatVector();
    int patch = Math.multiplyExact(channels, kH * kW);
    float[] out = new float[Math.multiplyExact(n * outH * outW, patch)];
    // the kernel rows (columns) inside the image, per output row (column): [lo, hi)
    int[] rowLo = new int[outH];
    int[] rowHi = new int[outH];
    insideRange(outH, h, kH, strides[0], pad[0], dilation[0], rowLo, rowHi);
    int[] colLo = new int[outW];
    int[] colHi = new int[outW];
    insideRange(outW, w, kW, strides[1], pad[1], dilation[1], colLo, colHi);
    int dW = dilation[1];
    int o = 0;
    for (int b = 0; b < n; b++) {
      for (int oh = 0; oh < outH; oh++) {
        int top = oh * strides[0] - pad[0];
        for (int ow = 0; ow < outW; ow++) {
          int left = ow * strides[1] - pad[1];
          int lo = colLo[ow];
          int hi = colHi[ow];
          if (lo == hi) {   // every tap of this output column is padding: the patch stays zero
            o += patch;
            continue;
          }
          for (int ch = 0; ch < channels; ch++) {
            int image = (b * channels + ch) * h;
            for (int i = rowLo[oh]; i < rowHi[oh]; i++) {
              int source = (image + top + i * dilation[0]) * w + left;
              int target = o + (ch * kH + i) * kW;
              if (dW == 1) {
                System.arraycopy(in, source + lo, out, target + lo, hi - lo);
              } else {
                for (int j = lo; j < hi; j++) {
                  out[target + j] = in[source + j * dW];
                }
              }
            }
          }
          o += patch;
        }
      }
    }
    INDArray col = Nd4j.createUninitialized(DataType.FLOAT, new long[] {n, outH, outW, channels, kH, kW}, 'c');
    col.data().asNioFloat().put(out);
    return col;
  }

  /** For each output position p: the kernel taps t with 0 ≤ p·stride − pad + t·dilation < size, as [lo, hi). */
  private static void insideRange(int outputs, int size, int kernel, int stride, int pad, int dilation, int[] lo,
      int[] hi) {
    for (int p = 0; p < outputs; p++) {
      int start = p * stride - pad;
      int first = 0;
      while (first < kernel && start + first * dilation < 0) {
        first++;
      }
      int end = first;
      while (end < kernel && start + end * dilation < size) {
        end++;
      }
      lo[p] = first;
      hi[p] = end;
    }
  }
}
