package org.bitopk.lab.baseline;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.datasets.LabeledImages;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.output.AtomicFiles;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * bitopk's problem written for the PyTorch peer ({@code ddp_peer.py}), so that DDP trains exactly what the job
 * trains: the job's initial parameters x0 (its DL4J MLP from {@code --seed}, in DL4J's flattened order, which is
 * torch's {@code Linear} weight [out, in] then bias, layer after layer), every worker's shard of the training set as
 * the job splits it (IID, {@code --seed}) with its examples already normalised, each epoch's order of them (the job's
 * workers' minibatch schedule), and the test set. Raw little-endian float32 and int32 files and a
 * {@code problem.json} describing them, written last: a directory with it is complete and is reused.
 */
final class DdpProblem {
  static final String DESCRIPTION = "problem.json";

  private DdpProblem() {}

  /** The widths of the MLP's layers, input first (784, 256, 128, 64, 10 for {@code --model mlp}). */
  static List<Integer> widths(MultiLayerNetwork network) {
    List<Integer> widths = new ArrayList<>();
    for (int i = 0; i < network.getnLayers(); i++) {
      FeedForwardLayer layer = (FeedForwardLayer) network.getLayer(i).conf().getLayer();
      if (i == 0) {
        widths.add(Math.toIntExact(layer.getNIn()));
      }
      widths.add(Math.toIntExact(layer.getNOut()));
    }
    return widths;
  }

  /** Writes the problem of {@code settings} on {@code data} into {@code dir} unless it holds it already. */
  static void write(FileSystem fs, Path dir, TrainTest data, ComparisonSettings settings) throws IOException {
    LabeledImages train = data.train();
    MultiLayerNetwork network = Dl4jSetup.network(train, settings.seed(), settings.learningRate());
    float[] x0 = Dl4jSetup.bitopkInitialParameters(train, settings.seed());
    List<WorkerShard> shards = ShardSplitter.iid(train, settings.workers(), settings.seed());
    int shardExamples = shards.get(0).data().count();
    String description = String.format(Locale.ROOT, "{\"layers\": %s, \"parameters\": %d, \"workers\": %d, "
        + "\"batch\": %d, \"epochs\": %d, \"shard_examples\": %d, \"test_examples\": %d, \"seed\": %d, "
        + "\"dataset\": \"%s\"}%n", widths(network), x0.length, settings.workers(), settings.batchSize(),
        settings.epochs(), shardExamples, data.test().count(), settings.seed(), settings.dataset().replace("\"", ""));
    Path descriptionFile = new Path(dir, DESCRIPTION);
    if (fs.exists(descriptionFile) && read(fs, descriptionFile).equals(description)) {
      return;
    }
    fs.mkdirs(dir);
    writeFloats(fs, new Path(dir, "x0.f32"), x0);
    for (WorkerShard shard : shards) {
      int w = shard.workerId();
      writeFloats(fs, new Path(dir, "shard-" + w + ".f32"), shard.data().features());
      writeInts(fs, new Path(dir, "shard-" + w + "-labels.i32"), shard.data().labels());
      int[] orders = new int[settings.epochs() * shardExamples];
      for (int epoch = 0; epoch < settings.epochs(); epoch++) {
        System.arraycopy(shard.epochOrder(epoch, settings.seed()), 0, orders, epoch * shardExamples, shardExamples);
      }
      writeInts(fs, new Path(dir, "shard-" + w + "-order.i32"), orders);
    }
    writeFloats(fs, new Path(dir, "test.f32"), data.test().features());
    writeInts(fs, new Path(dir, "test-labels.i32"), data.test().labels());
    AtomicFiles.writeText(fs, descriptionFile, description);
  }

  /** A little-endian float32 file, e.g. the parameters the peer wrote at an evaluation. */
  static float[] readFloats(FileSystem fs, Path file) throws IOException {
    byte[] bytes;
    try (InputStream in = fs.open(file)) {
      bytes = in.readAllBytes();
    }
    float[] values = new float[bytes.length / Float.BYTES];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
    return values;
  }

  static void writeFloats(FileSystem fs, Path file, float[] values) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    buffer.asFloatBuffer().put(values);
    writeBytes(fs, file, buffer.array());
  }

  private static void writeInts(FileSystem fs, Path file, int[] values) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(values.length * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    buffer.asIntBuffer().put(values);
    writeBytes(fs, file, buffer.array());
  }

  private static void writeBytes(FileSystem fs, Path file, byte[] bytes) throws IOException {
    try (OutputStream out = new BufferedOutputStream(fs.create(file, true), 1 << 20)) {
      out.write(bytes);
    }
  }

  private static String read(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
