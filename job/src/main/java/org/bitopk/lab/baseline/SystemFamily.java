package org.bitopk.lab.baseline;

import java.util.List;
import java.util.Optional;
import org.apache.spark.SparkConf;

/**
 * Systems that {@code time-to-accuracy} can compare, as a build provides them: each family is listed in
 * {@code META-INF/services/org.bitopk.lab.baseline.SystemFamily} of the jar that has it, so a build compares what
 * it was built with (the job's own systems on every Spark line, DL4J's Spark masters on the Spark 3.5 line only).
 */
public interface SystemFamily {
  /** The system a {@code --systems} name (trimmed, lower case) stands for, if this family has it. */
  Optional<ComparedSystem> parse(String name);

  /** The systems {@code time-to-accuracy} compares when {@code --systems} is not given. */
  List<String> defaults();

  /** How this family's names read, for the message on a name no family has. */
  String names();

  /** The Spark settings {@code chosen} needs from this family (only what its own systems need). */
  default SparkConf configure(SparkConf conf, List<ComparedSystem> chosen) {
    return conf;
  }
}
