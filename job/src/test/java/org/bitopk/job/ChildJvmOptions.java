package org.bitopk.job;

import java.util.List;

/**
 * JVM options for the JVMs the tests start of their own (jobs, Spark Masters, Workers, drivers, executors, YARN
 * containers): each lives for seconds to a minute and spends much of its CPU on starting, so the C1 compiler
 * alone and a serial collector make it cheaper; the work they do is mostly ND4J's native code, which the JIT
 * does not touch, and Java's floating point is the same at every compiler tier.
 */
public final class ChildJvmOptions {

  /** The options, one list entry each. */
  public static final List<String> CHEAP_START = List.of("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m",
      "-XX:+UseSerialGC");

  private ChildJvmOptions() {}

  /** The same as one string, as Spark's {@code *.defaultJavaOptions} settings take them. */
  public static String joined() {
    return String.join(" ", CHEAP_START);
  }
}
