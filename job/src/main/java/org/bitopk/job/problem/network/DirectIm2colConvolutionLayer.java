package org.bitopk.job.problem.network;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * DL4J's 2-D {@link ConvolutionLayer} configuration, instantiated as {@link DirectIm2colConvolution}: the same
 * layer whose forward pass builds its im2col matrix directly in the layout its matrix product reads, instead of
 * through a permuted view that ND4J fills element by element. Same parameters, same arithmetic, the same bits.
 *
 * <p>Only the workers' training replicas use it ({@link #substitute}); the networks the job writes keep DL4J's own
 * class, so a written model loads in DL4J without this project on the classpath.
 */
public final class DirectIm2colConvolutionLayer extends ConvolutionLayer {
  private static final long serialVersionUID = 1L;

  /** For DL4J's JSON and clone machinery. */
  public DirectIm2colConvolutionLayer() {
  }

  /**
   * The configuration with each plain NCHW {@link ConvolutionLayer} (exactly that class, not a subclass such as
   * a 1-D or depthwise convolution) replaced by a copy of itself of this class; every other layer is kept.
   * Changes {@code conf} in place and returns it.
   */
  public static MultiLayerConfiguration substitute(MultiLayerConfiguration conf) {
    for (NeuralNetConfiguration layerConf : conf.getConfs()) {
      if (layerConf.getLayer() != null && layerConf.getLayer().getClass() == ConvolutionLayer.class
          && ((ConvolutionLayer) layerConf.getLayer()).getCnn2dDataFormat() == CNN2DFormat.NCHW) {
        layerConf.setLayer(copyOf((ConvolutionLayer) layerConf.getLayer()));
      }
    }
    return conf;
  }

  /** Every instance field, copied: whatever DL4J's configuration holds, this one holds too. */
  static DirectIm2colConvolutionLayer copyOf(ConvolutionLayer layer) {
    DirectIm2colConvolutionLayer copy = new DirectIm2colConvolutionLayer();
    for (Class<?> c = ConvolutionLayer.class; c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (!Modifier.isStatic(f.getModifiers())) {
          try {
            f.setAccessible(true);
            f.set(copy, f.get(layer));
          } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot copy DL4J's ConvolutionLayer field " + f.getName(), e);
          }
        }
      }
    }
    return copy;
  }

  @Override
  public Layer instantiate(NeuralNetConfiguration conf, Collection<TrainingListener> trainingListeners,
      int layerIndex, INDArray layerParamsView, boolean initializeParams, DataType networkDataType) {
    // DL4J's ConvolutionLayer.instantiate, with the layer class swapped
    org.deeplearning4j.nn.conf.layers.LayerValidation.assertNInNOutSet("ConvolutionLayer", getLayerName(),
        layerIndex, getNIn(), getNOut());
    DirectIm2colConvolution layer = new DirectIm2colConvolution(conf, networkDataType);
    layer.setListeners(trainingListeners);
    layer.setIndex(layerIndex);
    layer.setParamsViewArray(layerParamsView);
    Map<String, INDArray> paramTable = initializer().init(conf, layerParamsView, initializeParams);
    layer.setParamTable(paramTable);
    layer.setConf(conf);
    return layer;
  }
}
