package org.bitopk.job;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.ShardSplitter;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.engine.DownlinkView;
import org.bitopk.job.engine.ReplicaStart;
import org.bitopk.job.engine.RoundSettings;
import org.bitopk.job.engine.StateLocations;
import org.bitopk.job.engine.UplinkSettings;
import org.bitopk.job.engine.WorkerTask;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.ModelChoice;
import org.bitopk.job.problem.network.ModelSpec;
import org.bitopk.job.problem.network.NetworkObjectiveFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import scala.reflect.ClassTag$;

/**
 * What Spark ships with every task must stay small: the task function (settings, broadcast handles and the
 * newest downlink update) and the partition object (which, for a parallelized RDD, would carry the shard itself).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClosureSizeTest {
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();

  private static int serializedSize(Object o) {
    ByteBuffer bytes = SparkEnv.get().closureSerializer().newInstance().serialize(o, ClassTag$.MODULE$.apply(Object.class));
    return bytes.remaining();
  }

  /** A network of one's own travels inside the factory, compressed: VGG-19's 64 KB of DL4J JSON included. */
  @Test
  void taskFunctionWithAModelOfOnesOwnStaysSmall(@TempDir Path tmp) throws IOException {
    Path file = Files.writeString(tmp.resolve("vgg.json"), ModelArchitecture.VGG19_BN.build(1, 3, 32, 32, 10).toJson());
    ModelSpec own = ModelChoice.parse(file.toString(), new Configuration());
    NetworkObjectiveFactory factory = new NetworkObjectiveFactory(own, 3, 32, 32, 10, 2, 1, false);
    JavaSparkContext sc = SPARK.context();
    List<Broadcast<byte[]>> window = List.of(sc.broadcast(new byte[10]));
    Broadcast<float[]> snapshot = sc.broadcast(new float[1]);
    WorkerTask<WorkerShard> task = new WorkerTask<>("run", new RoundSettings(0, 0, 0.1f, true, false, false), factory,
        new UplinkSettings(CompressorSpec.parse("topk"), 2427, true, 0f, 1), new DownlinkView(1, 0, List.of(),
        new byte[10], 0, snapshot, ReplicaStart.builtOnExecutors(new float[1])), new long[2], new StateLocations(
        new String[] {"executor-host-0:40000", "executor-host-1:40000"},
        List.of("executor-host-0:40000", "executor-host-1:40000"), 30_000));
    int size = serializedSize(task);
    assertTrue(size < 16 * 1024, "serialized task function: " + size + " bytes");
    window.forEach(Broadcast::destroy);
    snapshot.destroy();
  }

  @Test
  void taskFunctionCarriesNoModelNorData() {
    JavaSparkContext sc = SPARK.context();
    TrainTest data = Datasets.load("synthetic:n=2000,test=10", null, new Configuration());
    try (ImageProblem problem = new ImageProblem(sc, "synthetic", data, ModelArchitecture.MLP, 2, false, 16, 1)) {
      float[] x = problem.initialParameters(); // 242,762 floats = 971 KB if it were captured
      List<Broadcast<byte[]>> window = new ArrayList<>();
      for (int i = 0; i < 31; i++) {
        window.add(sc.broadcast(new byte[10_000]));
      }
      byte[] latest = new byte[10_000]; // the newest update travels inside the task by design
      Broadcast<float[]> snapshot = sc.broadcast(x);
      long[] tokensOf100Workers = new long[100];
      WorkerTask<WorkerShard> task = new WorkerTask<>("run", new RoundSettings(0, 0, 0.1f, true, false, false),
          problem.objectiveFactory(), new UplinkSettings(CompressorSpec.parse("topk"), 2427, true, 0f, 1),
          new DownlinkView(32, 0, window.subList(0, 31), latest, 0, snapshot, ReplicaStart.builtOnExecutors(x)),
          tokensOf100Workers, new StateLocations(
              java.util.stream.IntStream.range(0, 100).mapToObj(i -> "executor-host-" + i % 10 + ":40000")
                  .toArray(String[]::new), List.of("executor-host-1:40000", "executor-host-2:40000"), 30_000));
      int size = serializedSize(task) - latest.length;
      assertTrue(size < 16 * 1024, "serialized task function beside the newest update: " + size + " bytes");
      window.forEach(Broadcast::destroy);
      snapshot.destroy();

      int partition = serializedSize(problem.shards().partitions().get(0));
      assertTrue(partition < 2 * 1024, "serialized partition of the worker RDD: " + partition + " bytes");
    }
    // Control: the partition object of a parallelized RDD of shards holds the whole shard.
    JavaRDD<WorkerShard> raw = sc.parallelize(ShardSplitter.iid(data.train(), 2, 1), 2);
    int rawSize = serializedSize(raw.partitions().get(0));
    assertTrue(rawSize > 1_000_000, "control: parallelized partition is " + rawSize + " bytes");
  }
}
