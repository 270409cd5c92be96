package org.bitopk.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Worker shards survive both of Spark's serializers (tasks use Java serialization; caches may use Kryo). In the
 * job module, which brings Spark, since the datasets module knows nothing of it; in the datasets package for the
 * package-private factory that sets a black level.
 */
@Tag("spark-api")
class SparkSerializationTest {
  static Stream<Serializer> serializers() {
    SparkConf conf = new SparkConf().set("spark.kryo.registrationRequired", "false");
    return Stream.of(new JavaSerializer(conf), new KryoSerializer(conf));
  }

  @ParameterizedTest
  @MethodSource("serializers")
  void workerShardRoundTrip(Serializer serializer) {
    LabeledImages data = SyntheticData.builder().trainCount(40).testCount(4).classes(3).shape(3, 6, 5).seed(4)
        .build().generate().train();
    LabeledImages withBlack = LabeledImages.of(data.features(), data.labels(), 3, 6, 5, 3,
        new float[] {-1f, -2f, -3f});
    WorkerShard shard = WorkerShard.of(3, withBlack);
    Minibatch before = shard.minibatch(2, 1, 8, 77, true); // fills the (transient) epoch cache first
    SerializerInstance instance = serializer.newInstance();
    ClassTag<WorkerShard> tag = ClassTag$.MODULE$.apply(WorkerShard.class);
    ByteBuffer bytes = instance.serialize(shard, tag);
    WorkerShard copy = instance.deserialize(bytes, tag);
    assertEquals(3, copy.workerId());
    assertArrayEquals(shard.labelHistogram(), copy.labelHistogram());
    assertArrayEquals(shard.data().features(), copy.data().features());
    assertArrayEquals(new float[] {-1f, -2f, -3f}, copy.data().blackLevel());
    Minibatch after = copy.minibatch(2, 1, 8, 77, true);
    assertArrayEquals(before.features(), after.features());
    assertArrayEquals(before.labels(), after.labels());
  }
}
