package org.bitopk.job.problem.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.util.SerializableConfiguration;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag$;

/**
 * The driver's Hadoop settings rebuilt on the other side are the driver's configuration entry for entry (a value
 * changed, a key added, a default key removed), through Spark's Kryo as a broadcast travels, and they are a small
 * fraction of the whole configuration Spark's SerializableConfiguration writes.
 */
class HadoopSettingsTest {
  private static Map<String, String> entries(Configuration conf) {
    Map<String, String> out = new TreeMap<>();
    conf.forEach(e -> out.put(e.getKey(), conf.getRaw(e.getKey())));
    return out;
  }

  private static int javaSize(Serializable o) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.size();
  }

  @Test
  void rebuildsTheDriversConfigurationEntryForEntry() throws IOException {
    Configuration driver = new Configuration();
    driver.set("fs.file.impl.disable.cache", "true");
    driver.set("io.file.buffer.size", "65536");
    driver.set("bitopk.test.only.key", "${io.file.buffer.size}/x");
    String removed = entries(new Configuration()).keySet().iterator().next();
    driver.unset(removed);

    HadoopSettings settings = HadoopSettings.of(driver);
    SerializerInstance kryo = new KryoSerializer(new SparkConf()).newInstance();
    HadoopSettings shipped = kryo.deserialize(kryo.serialize(settings, ClassTag$.MODULE$.apply(HadoopSettings.class)),
        ClassTag$.MODULE$.apply(HadoopSettings.class));

    assertEquals(entries(driver), entries(shipped.toConfiguration()));
    assertEquals(4, settings.differences());
    int whole = javaSize(new SerializableConfiguration(driver));
    int differences = javaSize(settings);
    assertTrue(differences * 20 < whole, "differences " + differences + " bytes, whole configuration " + whole);
  }
}
