package org.bitopk.job.problem.network;

import java.nio.file.Path;
import org.bytedeco.hdf5.global.hdf5;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.modelimport.keras.Hdf5Archive;
import org.deeplearning4j.nn.modelimport.keras.KerasModel;
import org.deeplearning4j.nn.modelimport.keras.KerasSequentialModel;
import org.deeplearning4j.nn.modelimport.keras.utils.KerasModelBuilder;

/**
 * A Keras Sequential model's architecture as a DL4J configuration, through DL4J's Keras import (Keras 1 and
 * 2; Keras 3 files are refused by that importer). Only the architecture is read: training starts from the
 * initialisation drawn from {@code --seed}, like every model of the job, and the file's weights are not used.
 */
final class KerasImport {
  /** The first bytes of every HDF5 file without a user block. */
  private static final byte[] HDF5_SIGNATURE = {(byte) 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

  private KerasImport() {}

  static boolean isHdf5(byte[] head) {
    if (head.length < HDF5_SIGNATURE.length) {
      return false;
    }
    for (int i = 0; i < HDF5_SIGNATURE.length; i++) {
      if (head[i] != HDF5_SIGNATURE[i]) {
        return false;
      }
    }
    return true;
  }

  /** The architecture stored in a Keras .h5 file ({@code model_config} and {@code training_config}). */
  static MultiLayerConfiguration fromHdf5(String where, Path localFile) {
    String modelJson;
    String trainingJson = null;
    String version = null;
    synchronized (Hdf5Archive.LOCK_OBJECT) {
      // HDF5 prints its error stack to stderr by default; the failures are reported here in one line instead.
      hdf5.H5Eset_auto2(hdf5.H5E_DEFAULT(), null, null);
    }
    try (Hdf5Archive archive = new Hdf5Archive(localFile.toString())) {
      if (!archive.hasAttribute("model_config")) {
        throw new IllegalArgumentException(where + ": an HDF5 file without a Keras model_config (a weights-only "
            + "file?); save the whole model with model.save(\"model.h5\")");
      }
      modelJson = archive.readAttributeAsJson("model_config");
      if (archive.hasAttribute("training_config")) {
        trainingJson = archive.readAttributeAsJson("training_config");
      }
      if (archive.hasAttribute("keras_version")) {
        version = archive.readAttributeAsString("keras_version");
      }
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalArgumentException(where + ": cannot read the Keras model: "
          + ModelValidation.firstLine(ModelValidation.rootCause(e).getMessage()));
    }
    return fromJson(where, modelJson, trainingJson, version);
  }

  /** A Keras architecture JSON ({@code model.to_json()}), optionally with the training configuration. */
  static MultiLayerConfiguration fromJson(String where, String modelJson, String trainingJson, String version) {
    if (version != null && version.startsWith("3")) {
      throw new IllegalArgumentException(where + ": saved by Keras " + version + "; DL4J's Keras import reads "
          + "Keras 1 and 2 models only (save it with tf.keras 2.x or tf_keras, or give a DL4J configuration JSON)");
    }
    if (!modelJson.contains("\"Sequential\"")) {
      throw new IllegalArgumentException(where + ": not a Keras Sequential model (functional models import as a "
          + "ComputationGraph, which the job does not train)");
    }
    try (KerasModelBuilder builder = new KerasModel().modelBuilder()) {
      builder.modelJson(modelJson).enforceTrainingConfig(false);
      if (trainingJson != null) {
        builder.trainingJson(trainingJson);
      }
      KerasSequentialModel model = builder.buildSequential();
      return model.getMultiLayerConfiguration();
    } catch (Exception e) {
      String message = ModelValidation.firstLine(ModelValidation.rootCause(e).getMessage());
      if (message.contains("major version")) {
        throw new IllegalArgumentException(where + ": saved by a Keras version DL4J's Keras import does not read ("
            + message + ")");
      }
      throw new IllegalArgumentException(where + ": cannot import the Keras model: " + message);
    }
  }
}
