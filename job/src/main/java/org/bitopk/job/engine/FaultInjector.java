package org.bitopk.job.engine;

import java.io.Serializable;
import java.lang.reflect.InvocationTargetException;
import org.apache.spark.SparkConf;

/**
 * Faults a test injects into the worker tasks, to prove that retried and speculative attempts leave the result
 * unchanged and that a replica whose own x_0 differs from the driver's loads the snapshot. A run injects none
 * ({@link #NONE}). A test hands its own to a {@link Trainer} ({@link Trainer#injectFaults}), or, for a job started
 * by spark-submit, names a class of its own in the Spark setting {@value #SETTING} = {@code CLASS[:ARGUMENT]}, on
 * the driver's and the executors' class path, whose public constructor takes the argument. The injector travels to
 * the executors with each round's task.
 */
public interface FaultInjector extends Serializable {
  String SETTING = "spark.bitopk.faultInjector";

  /** No faults: what every run has unless a test says otherwise. */
  FaultInjector NONE = None.INSTANCE;

  /** Called right after attempt {@code attempt} of round {@code round} advanced worker {@code worker}'s state. */
  default void afterStep(int round, int worker, int attempt) {}

  /** Called with the x_0 a new replica built on its executor, before its checksum is compared with the driver's. */
  default void builtStart(float[] x0) {}

  /**
   * The injector {@value #SETTING} names in {@code conf}, else {@link #NONE}.
   *
   * @throws IllegalArgumentException naming the setting when its class cannot be made
   */
  static FaultInjector of(SparkConf conf) {
    String value = conf.get(SETTING, "");
    if (value.isBlank()) {
      return NONE;
    }
    int colon = value.indexOf(':');
    String name = colon < 0 ? value : value.substring(0, colon);
    String argument = colon < 0 ? "" : value.substring(colon + 1);
    try {
      Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
      return (FaultInjector) type.getConstructor(String.class).newInstance(argument);
    } catch (ClassNotFoundException | NoSuchMethodException | ClassCastException | InstantiationException
        | IllegalAccessException | InvocationTargetException e) {
      throw new IllegalArgumentException(SETTING + "=" + value + ": expected CLASS[:ARGUMENT], a FaultInjector with a "
          + "public constructor taking the argument, on the class path (" + e + ")");
    }
  }

  /** The no-op injector, one instance also after deserialization. */
  enum None implements FaultInjector { INSTANCE }
}
