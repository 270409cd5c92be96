package org.bitopk.job.problem.network;

import java.util.Arrays;
import java.util.Locale;
import org.bitopk.job.problem.ObjectiveFactory;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The papers' models as DL4J configurations (softmax output + negative log-likelihood, i.e. MCXENT).
 *
 * <p>The DL4J updater is {@link NoOp}: DL4J only computes gradients here; SGD, error feedback and
 * compression happen in the job. The trainable-parameter counts equal the reference (PyTorch) models;
 * batch-norm layers add their running mean and variance to DL4J's flattened parameter vector on top of that
 * (see {@link ObjectiveFactory#statisticsIndices()} for how they are synchronised).
 */
public enum ModelArchitecture implements ModelSpec {
  /** MNIST MLP 784–64–10: 50,890 parameters. */
  MLP_SMALL("mlp-small", 50_890) {
    @Override
    MultiLayerConfiguration configuration(long seed, int channels, int height, int width, int classes) {
      return mlp(seed, channels * height * width, classes, 64);
    }
  },
  /** Fashion-MNIST MLP 784–256–128–64–10: 242,762 parameters. */
  MLP("mlp", 242_762) {
    @Override
    MultiLayerConfiguration configuration(long seed, int channels, int height, int width, int classes) {
      return mlp(seed, channels * height * width, classes, 256, 128, 64);
    }
  },
  /** MNIST CNN: conv3×3 32 → conv3×3 64 → maxpool 2 → dropout 0.25 → dense 128 → dropout 0.5 → 10. */
  CNN("cnn", 1_199_882) {
    @Override
    MultiLayerConfiguration configuration(long seed, int channels, int height, int width, int classes) {
      return base(seed).list()
          .layer(new ConvolutionLayer.Builder(3, 3).nOut(32).activation(Activation.RELU).build())
          .layer(new ConvolutionLayer.Builder(3, 3).nOut(64).activation(Activation.RELU).build())
          .layer(maxPool())
          .layer(new DropoutLayer.Builder(0.75).build()) // DL4J takes the retain probability
          .layer(new DenseLayer.Builder().nOut(128).activation(Activation.RELU).build())
          .layer(new DropoutLayer.Builder(0.5).build())
          .layer(output(classes))
          .setInputType(InputType.convolutionalFlat(height, width, channels))
          .build();
    }
  },
  /** Fashion-MNIST CNN: 2 × [conv5×5 pad 2 + BN + ReLU + maxpool 2] (16, 32 channels) → dense 10. */
  CNN_BN("cnn-bn", 29_034) {
    @Override
    MultiLayerConfiguration configuration(long seed, int channels, int height, int width, int classes) {
      NeuralNetConfiguration.ListBuilder list = base(seed).list();
      for (int out : new int[] {16, 32}) {
        list.layer(new ConvolutionLayer.Builder(5, 5).padding(2, 2).nOut(out).activation(Activation.IDENTITY).build())
            .layer(new BatchNormalization.Builder().build())
            .layer(new ActivationLayer.Builder().activation(Activation.RELU).build())
            .layer(maxPool());
      }
      return list.layer(output(classes)).setInputType(InputType.convolutionalFlat(height, width, channels)).build();
    }
  },
  /** CIFAR-10 VGG19 with batch norm: 16 conv3×3 layers (+BN +ReLU), 5 max pools, linear 512→10. */
  VGG19_BN("vgg19-bn", 20_040_522) {
    @Override
    MultiLayerConfiguration configuration(long seed, int channels, int height, int width, int classes) {
      int[] plan = {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0, 512, 512, 512, 512, 0, 512, 512, 512, 512, 0};
      NeuralNetConfiguration.ListBuilder list = base(seed).list();
      for (int out : plan) {
        if (out == 0) {
          list.layer(maxPool());
        } else {
          list.layer(new ConvolutionLayer.Builder(3, 3).convolutionMode(ConvolutionMode.Same).nOut(out)
                  .activation(Activation.IDENTITY).build())
              .layer(new BatchNormalization.Builder().build())
              .layer(new ActivationLayer.Builder().activation(Activation.RELU).build());
        }
      }
      return list.layer(output(classes)).setInputType(InputType.convolutionalFlat(height, width, channels)).build();
    }
  };

  private final String cliName;
  private final long trainableParameters;

  ModelArchitecture(String cliName, long trainableParameters) {
    this.cliName = cliName;
    this.trainableParameters = trainableParameters;
  }

  /** The name used on the command line. */
  public String cliName() {
    return cliName;
  }

  @Override
  public String displayName() {
    return cliName;
  }

  @Override
  public Object flagValue() {
    return cliName;
  }

  /** Trainable parameters of the reference model for 28×28×1 (MLPs, CNNs) or 32×32×3 (VGG) inputs, 10 classes. */
  public long referenceTrainableParameters() {
    return trainableParameters;
  }

  abstract MultiLayerConfiguration configuration(long seed, int channels, int height, int width, int classes);

  /** Builds the DL4J configuration for images of the given shape. */
  @Override
  public MultiLayerConfiguration build(long seed, int channels, int height, int width, int classes) {
    return configuration(seed, channels, height, width, classes);
  }

  /**
   * The same network with a DL4J updater instead of {@link NoOp}: lets tests compare one step of the job's
   * SGD with DL4J's own {@code fit}.
   */
  public MultiLayerConfiguration build(long seed, int channels, int height, int width, int classes,
      IUpdater updater) {
    MultiLayerConfiguration conf = configuration(seed, channels, height, width, classes);
    for (NeuralNetConfiguration layerConf : conf.getConfs()) {
      if (layerConf.getLayer() instanceof BaseLayer base) {
        base.setIUpdater(updater);
      }
    }
    return conf;
  }

  /**
   * Checks that the network can take images of this shape, without initialising it (no ND4J backend, no
   * parameters): every layer must get a non-empty input. A CNN's convolutions and poolings shrink the image;
   * too small an image leaves a layer with nothing, which DL4J would only report as a trace once training
   * starts.
   *
   * @throws IllegalArgumentException naming the first layer that gets an empty input
   */
  public void checkFits(int channels, int height, int width, int classes) {
    if (channels < 1 || height < 1 || width < 1 || classes < 2) {
      throw new IllegalArgumentException("needs images of at least 1x1x1 and 2 classes, got " + channels + "x"
          + height + "x" + width + " and " + classes + " classes");
    }
    MultiLayerConfiguration conf = configuration(0, channels, height, width, classes);
    java.util.List<InputType> inputs = conf.getLayerActivationTypes(
        InputType.convolutionalFlat(height, width, channels));
    // getLayerActivationTypes gives each layer's output; layer i's input is layer i-1's output
    for (int i = 0; i < inputs.size(); i++) {
      for (long size : inputs.get(i).getShape(false)) {
        if (size < 1) {
          int next = Math.min(i + 1, conf.getConfs().size() - 1);
          throw new IllegalArgumentException("its layer " + (i + 1) + " ("
              + conf.getConf(i).getLayer().getClass().getSimpleName() + ") turns the " + channels + "x" + height
              + "x" + width + " images into an empty " + inputs.get(i) + ", leaving nothing for layer " + (next + 1)
              + " (" + conf.getConf(next).getLayer().getClass().getSimpleName() + ")");
        }
      }
    }
  }

  /** Parses a CLI name; IllegalArgumentException naming the text and the choices. */
  public static ModelArchitecture parse(String text) {
    for (ModelArchitecture m : values()) {
      if (m.cliName.equals(text.toLowerCase(Locale.ROOT))) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown model '" + text + "': expected one of " + cliNames());
  }

  public static String cliNames() {
    return String.join(", ", Arrays.stream(values()).map(ModelArchitecture::cliName).toList());
  }

  private static NeuralNetConfiguration.Builder base(long seed) {
    return new NeuralNetConfiguration.Builder()
        .seed(seed)
        .dataType(DataType.FLOAT)
        .updater(new NoOp())
        .weightInit(WeightInit.RELU);
  }

  private static MultiLayerConfiguration mlp(long seed, int inputs, int classes, int... hidden) {
    NeuralNetConfiguration.ListBuilder list = base(seed).list();
    for (int h : hidden) {
      list.layer(new DenseLayer.Builder().nOut(h).activation(Activation.RELU).build());
    }
    return list.layer(output(classes)).setInputType(InputType.feedForward(inputs)).build();
  }

  private static SubsamplingLayer maxPool() {
    return new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build();
  }

  private static OutputLayer output(int classes) {
    return new OutputLayer.Builder(LossFunction.MCXENT).nOut(classes).activation(Activation.SOFTMAX)
        .weightInit(WeightInit.XAVIER).build();
  }
}
