package org.bitopk.job.problem.network;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * The driver's Hadoop configuration as the settings in which it differs from Hadoop's defaults ({@code new
 * Configuration()}: core-default.xml and core-site.xml on the class path): what the executors need to read the
 * data with the driver's settings, including those set in the program or through {@code spark.hadoop.*}.
 * The whole configuration, which Spark's {@code SerializableConfiguration} writes, is about 140 KB, sent to every
 * executor at the start of a run; the differences are typically a few hundred bytes. Plain arrays inside, so
 * that Spark's Kryo broadcasts it with its default serializers.
 */
final class HadoopSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Keys whose raw value differs from the default's, and the driver's raw values. */
  private final String[] keys;
  private final String[] values;
  /** Keys the defaults hold and the driver's configuration does not. */
  private final String[] unset;

  private HadoopSettings(String[] keys, String[] values, String[] unset) {
    this.keys = keys;
    this.values = values;
    this.unset = unset;
  }

  /** The settings in which {@code conf} differs from a fresh {@code new Configuration()}. */
  static HadoopSettings of(Configuration conf) {
    Configuration defaults = new Configuration();
    List<String> keys = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (Map.Entry<String, String> e : conf) {
      String value = conf.getRaw(e.getKey());
      if (value != null && !Objects.equals(value, defaults.getRaw(e.getKey()))) {
        keys.add(e.getKey());
        values.add(value);
      }
    }
    List<String> unset = new ArrayList<>();
    for (Map.Entry<String, String> e : defaults) {
      if (conf.getRaw(e.getKey()) == null) {
        unset.add(e.getKey());
      }
    }
    return new HadoopSettings(keys.toArray(String[]::new), values.toArray(String[]::new),
        unset.toArray(String[]::new));
  }

  /** Hadoop's defaults where this JVM runs, with the driver's differences applied. */
  Configuration toConfiguration() {
    Configuration conf = new Configuration();
    for (int i = 0; i < keys.length; i++) {
      conf.set(keys[i], values[i]);
    }
    for (String key : unset) {
      conf.unset(key);
    }
    return conf;
  }

  /** How many settings differ from the defaults (set or unset). */
  int differences() {
    return keys.length + unset.length;
  }
}
