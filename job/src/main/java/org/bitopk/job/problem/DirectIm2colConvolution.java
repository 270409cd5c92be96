package org.bitopk.job.problem;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
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
import org.nd4j.linalg.factory.Nd4j;

/**
 * DL4J's convolution layer with a faster im2col. DL4J multiplies the im2col matrix, rows (example, output row,
 * output column) by columns (channel, kernel row, kernel column), by the weights; to get it it lets ND4J's
 * im2col write through a permuted view of that matrix, and ND4J's strided writes made this one step cost
 * 23 ms of the Fashion-MNIST CNN's 86 ms worker step (its second convolution, a minibatch of 10). Here the
 * same matrix is filled in Java in its own order and copied to ND4J in one piece. Every later
 * operation is DL4J's own, on an array of the same shape and strides, so the layer's output and gradients are
 * DL4J's bit for bit ({@code DirectIm2colConvolutionTest}).
 *
 * <p>Only the common case takes this path: float data in NCHW and no cuDNN/oneDNN helper; anything else is
 * DL4J's own code.
 */
final class DirectIm2colConvolution extends ConvolutionLayer {
  private static final long serialVersionUID = 1L;

  DirectIm2colConvolution(NeuralNetConfiguration conf, DataType dataType) {
    super(conf, dataType);
  }

  @Override
  protected Pair<INDArray, INDArray> preOutput(boolean training, boolean forBackprop,
      LayerWorkspaceMgr workspaceMgr) {
    org.deeplearning4j.nn.conf.layers.ConvolutionLayer c = layerConf();
    // a missing or wrongly shaped input also goes to DL4J's code, for DL4J's own error message
    if (helper != null || c.getCnn2dDataFormat() != CNN2DFormat.NCHW || dataType != DataType.FLOAT
        || input == null || input.rank() != 4) {
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
    int outH = outSize[0];
    int outW = outSize[1];
    if (preOutput != null && i2d != null && forBackprop) {
      return new Pair<>(preOutput, i2d);
    }

    INDArray col = im2col(input, outH, outW, kH, kW, strides, pad, dilation);
    // from here on DL4J's ConvolutionLayer.preOutput (1.0.0-M2.1), unchanged
    INDArray im2col2d = Shape.newShapeNoCopy(col, new long[] {miniBatch * outH * outW, inDepth * kH * kW}, false);
    INDArray permutedW = weights.permute(3, 2, 1, 0);
    INDArray reshapedW = permutedW.reshape('f', (long) kW * kH * inDepth, outDepth);
    INDArray z = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, weights.dataType(),
        new long[] {im2col2d.size(0), reshapedW.size(1)}, 'f');
    im2col2d.mmuli(reshapedW, z);
    if (c.hasBias()) {
      z.addiRowVector(bias);
    }
    z = Shape.newShapeNoCopy(z, new long[] {outW, outH, miniBatch, outDepth}, true);
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
