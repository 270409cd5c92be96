package org.bitopk.lab.baseline;

import java.util.List;
import java.util.Optional;
import org.apache.spark.SparkConf;

/**
 * DL4J's Spark training masters as systems of the comparison: {@code patm-F} (ParameterAveragingTrainingMaster,
 * averaging every F minibatches) and {@code shared} (SharedTrainingMaster). Their DL4J module is published for
 * Scala 2.12 only, so only the Spark 3.5 build has this family.
 */
public final class Dl4jMasters implements SystemFamily {
  static final String ND4J_REGISTRATOR = "org.nd4j.kryo.Nd4jRegistrator";

  @Override
  public Optional<ComparedSystem> parse(String name) {
    if (name.equals(SharedTraining.NAME)) {
      return Optional.of(new SharedTraining());
    }
    if (name.startsWith(ParameterAveraging.PREFIX)
        && name.substring(ParameterAveraging.PREFIX.length()).matches("[1-9][0-9]{0,5}")) {
      return Optional.of(new ParameterAveraging(Integer.parseInt(name.substring(ParameterAveraging.PREFIX.length()))));
    }
    return Optional.empty();
  }

  @Override
  public List<String> defaults() {
    return List.of("patm-1", "patm-5", "patm-20", SharedTraining.NAME);
  }

  @Override
  public String names() {
    return ParameterAveraging.PREFIX + "F (F an averaging frequency >= 1), " + SharedTraining.NAME;
  }

  /** ND4J's Kryo registrator next to the job's, and for {@code shared} Aeron's timeout in the executors. */
  @Override
  public SparkConf configure(SparkConf conf, List<ComparedSystem> chosen) {
    if (chosen.stream().noneMatch(s -> s instanceof ParameterAveraging || s instanceof SharedTraining)) {
      return conf;
    }
    withNd4jKryo(conf);
    return chosen.stream().anyMatch(s -> s instanceof SharedTraining) ? SharedTraining.forExecutors(conf) : conf;
  }

  /** DL4J's Spark masters ship DataSets (INDArrays) through Kryo: ND4J's registrator next to the job's. */
  static SparkConf withNd4jKryo(SparkConf conf) {
    String registrators = conf.get("spark.kryo.registrator", "");
    if (!registrators.contains(ND4J_REGISTRATOR)) {
      conf.set("spark.kryo.registrator", (registrators.isBlank() ? "" : registrators + ",") + ND4J_REGISTRATOR);
    }
    return conf;
  }
}
