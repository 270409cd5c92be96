package org.bitopk.job.problem.network;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.BackpropType;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BaseOutputLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.LossLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.activations.impl.ActivationSoftmax;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;

/**
 * The rules a network of one's own must follow to be trained by the job, each broken rule one error line
 * starting with {@code --model <file>:}.
 *
 * <p>Why these rules: the job uses DL4J only to compute the gradient of the loss on a minibatch
 * ({@code computeGradientAndScore}); SGD, momentum, error feedback and compression happen in the job. DL4J
 * applies regularization, gradient normalization and weight constraints in its updater step, which the job
 * never runs: a network asking for them would silently train without them, so it is refused. The file's
 * updater (Adam, Nesterovs...) is replaced by NoOp for the same reason, but that is documented rather than
 * refused: the job's optimiser is set with --lr and --momentum. The metrics' test loss is the cross-entropy
 * of a softmax output, so the network must be a softmax classifier.
 */
final class ModelValidation {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ModelValidation() {}

  /**
   * Parses a DL4J MultiLayerConfiguration JSON. Files written by {@code MultiLayerConfiguration.toJson()}
   * are complete; a hand-written one may leave out the settings DL4J's builder would have filled in
   * (optimisation algorithm, workspace and cache modes, updater, empty regularization), which are filled in
   * here with the builder's defaults, because DL4J's own reader leaves them null and fails later.
   */
  static MultiLayerConfiguration parse(String where, String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + " is not JSON (" + firstLine(e.getOriginalMessage()) + " at line "
          + e.getLocation().getLineNr() + ")");
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(where + " is not a JSON object: expected a DL4J MultiLayerConfiguration");
    }
    if (root.has("vertices") || root.has("networkInputs")) {
      throw new IllegalArgumentException(where + " is a DL4J ComputationGraphConfiguration; the job trains "
          + "MultiLayerConfiguration networks (a stack of layers) only");
    }
    JsonNode confs = root.get("confs");
    if (confs == null || !confs.isArray()) {
      throw new IllegalArgumentException(where + " is not a DL4J MultiLayerConfiguration: no \"confs\" list of "
          + "layers (write it with MultiLayerConfiguration.toJson())");
    }
    if (confs.isEmpty()) {
      throw new IllegalArgumentException(where + " has no layers (\"confs\" is empty)");
    }
    ObjectNode filled = ((ObjectNode) root).deepCopy();
    fillDefaults(filled);
    try {
      return MultiLayerConfiguration.fromJson(JSON.writeValueAsString(filled));
    } catch (RuntimeException | JsonProcessingException e) {
      throw new IllegalArgumentException(where + " is not a valid DL4J MultiLayerConfiguration: "
          + firstLine(rootCause(e).getMessage()));
    }
  }

  /**
   * Checks what does not depend on the data: a trainable softmax classifier without updater-step features.
   * Returns a copy whose head is an {@link OutputLayer} (a final softmax {@link DenseLayer}, as Keras import
   * produces, becomes an OutputLayer with cross-entropy loss: same parameters, same gradient).
   */
  static MultiLayerConfiguration checkTrainable(String where, MultiLayerConfiguration parsed) {
    MultiLayerConfiguration conf = parsed.clone();
    if (conf.getBackpropType() != BackpropType.Standard) {
      throw new IllegalArgumentException(where + ": backpropagation type " + conf.getBackpropType()
          + " is not supported; use Standard");
    }
    List<NeuralNetConfiguration> confs = conf.getConfs();
    for (int i = 0; i < confs.size(); i++) {
      Layer layer = confs.get(i).getLayer();
      if (layer == null) {
        throw new IllegalArgumentException(where + ": entry " + i + " of \"confs\" has no \"layer\"");
      }
      String name = describe(i, layer);
      if (layer instanceof BaseLayer base) {
        if (base.getActivationFn() == null) {
          throw new IllegalArgumentException(where + ": " + name + " has no activationFn");
        }
        if (base.getWeightInitFn() == null) {
          throw new IllegalArgumentException(where + ": " + name + " has no weightInitFn");
        }
        if (!isEmpty(base.getRegularization()) || !isEmpty(base.getRegularizationBias())) {
          throw new IllegalArgumentException(where + ": " + name + " has regularization " + regularization(base)
              + ", which the job does not apply (DL4J applies it in the updater step; the job's SGD uses the loss "
              + "gradient alone): remove it");
        }
        GradientNormalization normalization = base.getGradientNormalization();
        if (normalization != null && normalization != GradientNormalization.None) {
          throw new IllegalArgumentException(where + ": " + name + " has gradient normalization " + normalization
              + ", which the job does not apply (DL4J applies it in the updater step): remove it");
        }
      }
      if (!isEmpty(layer.getConstraints())) {
        throw new IllegalArgumentException(where + ": " + name + " has weight constraints " + layer.getConstraints()
            + ", which the job does not apply (DL4J applies them after the updater step): remove them");
      }
    }
    int last = confs.size() - 1;
    Layer head = confs.get(last).getLayer();
    if (head.getClass() == DenseLayer.class && ((DenseLayer) head).getActivationFn() instanceof ActivationSoftmax) {
      head = outputLayerFrom(where, (DenseLayer) head);
      confs.get(last).setLayer(head);
    }
    IActivation activation = head instanceof BaseLayer base ? base.getActivationFn()
        : head instanceof LossLayer loss ? loss.getActivationFn() : null;
    ILossFunction loss = head instanceof BaseOutputLayer output ? output.getLossFn()
        : head instanceof LossLayer lossLayer ? lossLayer.getLossFn() : null;
    boolean softmax = activation instanceof ActivationSoftmax
        || head instanceof LossLayer && activation instanceof ActivationIdentity && last > 0
        && confs.get(last - 1).getLayer() instanceof BaseLayer before
        && before.getActivationFn() instanceof ActivationSoftmax;
    boolean classifierHead = head.getClass() == OutputLayer.class || head.getClass() == LossLayer.class;
    if (!classifierHead || !softmax || !(loss instanceof LossMCXENT)) {
      throw new IllegalArgumentException(where + ": not a classifier: the last layer must be an OutputLayer (or "
          + "LossLayer) with softmax activation and MCXENT / negative log-likelihood loss; it is "
          + describe(last, head) + " with " + simpleName(activation) + " activation and " + simpleName(loss)
          + " loss");
    }
    conf.setDataType(DataType.FLOAT);
    for (NeuralNetConfiguration c : confs) {
      c.setDataType(DataType.FLOAT);
      if (c.getLayer() instanceof BaseLayer base) {
        base.setIUpdater(new NoOp());
        base.setBiasUpdater(null);
      }
    }
    return conf;
  }

  /** Checks the network against the data: flat rows of C·H·W values in, one probability per class out. */
  static void checkFits(String where, MultiLayerConfiguration conf, int channels, int height, int width,
      int classes) {
    List<NeuralNetConfiguration> confs = conf.getConfs();
    Layer head = confs.get(confs.size() - 1).getLayer();
    long outputs = head instanceof BaseOutputLayer output ? output.getNOut()
        : confs.size() > 1 && confs.get(confs.size() - 2).getLayer() instanceof
            org.deeplearning4j.nn.conf.layers.FeedForwardLayer before ? before.getNOut() : -1;
    if (outputs != classes) {
      throw new IllegalArgumentException(where + ": the output layer has " + outputs + " outputs, the data have "
          + classes + " classes");
    }
    String shape = channels + "x" + height + "x" + width;
    long inputs = (long) channels * height * width;
    InputPreProcessor first = conf.getInputPreProcess(0);
    Layer layer = confs.get(0).getLayer();
    if (first instanceof FeedForwardToCnnPreProcessor images) {
      String expected = images.getNumChannels() + "x" + images.getInputHeight() + "x" + images.getInputWidth();
      if (!expected.equals(shape)) {
        throw new IllegalArgumentException(where + ": built for " + expected + " images (CxHxW), the data are "
            + shape);
      }
    } else if (first == null && (layer instanceof DenseLayer || layer instanceof BaseOutputLayer)) {
      long nIn = ((org.deeplearning4j.nn.conf.layers.FeedForwardLayer) layer).getNIn();
      if (nIn != inputs) {
        throw new IllegalArgumentException(where + ": the first layer (" + layer.getClass().getSimpleName()
            + ") takes " + nIn + " inputs, the data have " + inputs + " (" + shape + ")");
      }
    }
  }

  /** "layer 2 (DenseLayer 'dense_1')". */
  static String describe(int index, Layer layer) {
    String name = layer.getLayerName();
    return "layer " + index + " (" + layer.getClass().getSimpleName()
        + (name == null || name.isEmpty() ? "" : " '" + name + "'") + ")";
  }

  static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    return message.lines().findFirst().orElse(message).trim();
  }

  static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static OutputLayer outputLayerFrom(String where, DenseLayer dense) {
    if (dense.isHasLayerNorm()) {
      throw new IllegalArgumentException(where + ": the final softmax DenseLayer uses layer normalisation, which "
          + "an OutputLayer cannot; end the network with an OutputLayer");
    }
    OutputLayer output = new OutputLayer.Builder(new LossMCXENT()).nIn(dense.getNIn()).nOut(dense.getNOut())
        .activation(dense.getActivationFn()).weightInit(dense.getWeightInitFn()).biasInit(dense.getBiasInit())
        .hasBias(dense.hasBias()).build();
    output.setLayerName(dense.getLayerName());
    output.setIDropout(dense.getIDropout());
    output.setWeightNoise(dense.getWeightNoise());
    output.setGainInit(dense.getGainInit());
    output.setIUpdater(new NoOp());
    output.setRegularization(new ArrayList<>());
    output.setRegularizationBias(new ArrayList<>());
    output.setGradientNormalization(GradientNormalization.None);
    return output;
  }

  private static void fillDefaults(ObjectNode root) {
    ObjectNode template = JSON.valueToTree(templateTree());
    ObjectNode confTemplate = (ObjectNode) template.remove("confs").get(0);
    confTemplate.remove("layer");
    putMissing(root, template);
    ArrayNode confs = (ArrayNode) root.get("confs");
    for (JsonNode conf : confs) {
      if (!conf.isObject()) {
        continue;
      }
      putMissing((ObjectNode) conf, confTemplate);
      if (conf.get("layer") instanceof ObjectNode layer && isBaseLayer(layer)) {
        if (!layer.has("iupdater") && !layer.has("updater")) {
          layer.putObject("iupdater").put("@class", NoOp.class.getName());
        }
        boolean legacyRegularization = layer.has("l1") || layer.has("l2") || layer.has("l1Bias") || layer.has("l2Bias");
        for (String key : List.of("regularization", "regularizationBias")) {
          if (!layer.has(key) && !legacyRegularization) {
            layer.putArray(key);
          }
        }
      }
    }
  }

  private static boolean isBaseLayer(ObjectNode layer) {
    JsonNode type = layer.get("@class");
    if (type == null || !type.isTextual()) {
      return false;
    }
    try {
      return BaseLayer.class.isAssignableFrom(Class.forName(type.asText(), false, ModelValidation.class.getClassLoader()));
    } catch (ClassNotFoundException | LinkageError e) {
      return false; // DL4J's reader names the unknown class
    }
  }

  private static void putMissing(ObjectNode target, ObjectNode defaults) {
    for (Iterator<Map.Entry<String, JsonNode>> it = defaults.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!target.has(e.getKey())) {
        target.set(e.getKey(), e.getValue().deepCopy());
      }
    }
  }

  /** A one-layer network from DL4J's builder: its JSON holds the builder's defaults of every setting. */
  private static JsonNode templateTree() {
    MultiLayerConfiguration template = new NeuralNetConfiguration.Builder().list()
        .layer(new OutputLayer.Builder().nIn(2).nOut(2).build()).build();
    try {
      return JSON.readTree(template.toJson());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("DL4J wrote unreadable JSON", e);
    }
  }

  private static boolean isEmpty(List<?> list) {
    return list == null || list.isEmpty();
  }

  private static String regularization(BaseLayer layer) {
    List<Object> all = new ArrayList<>();
    if (layer.getRegularization() != null) {
      all.addAll(layer.getRegularization());
    }
    if (layer.getRegularizationBias() != null) {
      all.addAll(layer.getRegularizationBias());
    }
    return all.toString();
  }

  private static String simpleName(Object o) {
    return o == null ? "no" : o.getClass().getSimpleName();
  }
}
