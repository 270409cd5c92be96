package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.compression.ValueFormat;
import org.bitopk.job.spark.BitopkKryoRegistrator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * A worker's report crosses from executor to driver as a task result, through Kryo with the job's registrator:
 * every field of the immutable report (final fields, no no-argument constructor) arrives as the builder set it.
 * Registration is required here, so a field of a class the registrator does not know fails the test.
 */
@Tag("spark-api")
class WorkerReportSerializationTest {
  private static SerializerInstance kryo() {
    SparkConf conf = new SparkConf().set("spark.kryo.registrationRequired", "true")
        .set("spark.kryo.registrator", BitopkKryoRegistrator.class.getName());
    return new KryoSerializer(conf).newInstance();
  }

  @Test
  void everyFieldSurvivesKryo() {
    SparseVector sent = SparseVector.of(10, new int[] {1, 7}, new float[] {0.5f, -2f});
    byte[] uplink = SparseCodec.encode(sent, ValueFormat.FP32);
    WorkerReport report = new WorkerReport.Builder(3, 41, "10.0.0.7:40123")
        .message(uplink, new float[] {0.25f, 4f}, 1.75, new UplinkMemory.Step(sent, 2, 2, 3.5, 1.25))
        .attempt(true, true, 9_000_000_001L)
        .handedOver(1_234_567L)
        .dense(new float[] {1f, 2f, 3f}, new float[] {-1f, -2f, -3f})
        .times(11L, 22L)
        .task(5, 0xCAFEL)
        .catchUp(33L, new Replica.CatchUp(4, true))
        .build();
    ClassTag<WorkerReport> tag = ClassTag$.MODULE$.apply(WorkerReport.class);
    SerializerInstance kryo = kryo();
    ByteBuffer bytes = kryo.serialize(report, tag);
    WorkerReport copy = kryo.deserialize(bytes, tag);

    assertEquals(3, copy.workerId);
    assertEquals(41, copy.iteration);
    assertEquals(5, copy.task);
    assertArrayEquals(uplink, copy.uplink);
    assertArrayEquals(new float[] {0.25f, 4f}, copy.statistics);
    assertEquals(1.75, copy.loss);
    assertEquals(2, copy.targetK);
    assertEquals(2, copy.achievedK);
    assertEquals(3.5, copy.compensatedNorm);
    assertEquals(1.25, copy.residualNorm);
    assertEquals(11L, copy.gradientNanos);
    assertEquals(22L, copy.compressNanos);
    assertEquals(33L, copy.catchUpNanos);
    assertEquals(4, copy.updatesApplied);
    assertEquals(true, copy.resynchronised);
    assertEquals(true, copy.residualLost);
    assertEquals(true, copy.rolledBack);
    assertEquals(9_000_000_001L, copy.stateToken);
    assertEquals(1_234_567L, copy.handedOverBytes);
    assertEquals("10.0.0.7:40123", copy.executor);
    assertEquals(0xCAFEL, copy.checksum);
    assertArrayEquals(new float[] {1f, 2f, 3f}, copy.compensated);
    assertArrayEquals(new float[] {-1f, -2f, -3f}, copy.scaledGradient);
    assertEquals(uplink.length + 2 * Float.BYTES, copy.uplinkBytes());

    // a round's move counts the workers whose tasks took a handed-over state, with its bytes, beside the placed ones
    WorkerReport stayed = new WorkerReport.Builder(4, 41, "10.0.0.7:40123")
        .message(uplink, new float[0], 1.0, new UplinkMemory.Step(sent, 2, 2, 3.5, 1.25))
        .attempt(false, false, 7L).build();
    ElasticGroups.Move handed = ElasticGroups.Move.handedOverIn(List.of(copy, stayed, copy));
    assertEquals(new ElasticGroups.Move(2, 2 * 1_234_567L, 0, 0), handed);
    assertEquals(new ElasticGroups.Move(3, 2 * 1_234_567L + 100, 12.5, 1),
        handed.plus(new ElasticGroups.Move(1, 100, 12.5, 1)));
    assertEquals(ElasticGroups.Move.NONE, ElasticGroups.Move.handedOverIn(List.of(stayed)));
  }

  @Test
  void aReportWithoutDenseVectorsArrivesWithout() {
    SparseVector sent = SparseVector.of(4, new int[] {2}, new float[] {1f});
    WorkerReport report = new WorkerReport.Builder(0, 0, "local")
        .message(SparseCodec.encode(sent, ValueFormat.FP32), new float[0], 0.5, new UplinkMemory.Step(sent, 1, 1, 1, 0))
        .build();
    ClassTag<WorkerReport> tag = ClassTag$.MODULE$.apply(WorkerReport.class);
    SerializerInstance kryo = kryo();
    WorkerReport copy = kryo.deserialize(kryo.serialize(report, tag), tag);
    assertNull(copy.compensated);
    assertNull(copy.scaledGradient);
    assertEquals(0, copy.updatesApplied);
    assertEquals(false, copy.resynchronised);
  }
}
