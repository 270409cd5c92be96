package org.bitopk.cli;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * What the machine must allow before the job starts, checked first thing, since failing it later says nothing
 * useful: with too few file descriptors the JVM cannot even open the jars of its class path, and the classes it
 * then misses are reported as not found (or not at all, once the console is redirected into the log).
 */
final class MachineLimits {
  /** Descriptors beyond the class path's jars: Spark's shuffle and block files, sockets, the log, the data. */
  static final int HEADROOM = 256;

  private MachineLimits() {}

  /** The one line saying what is missing, if anything. */
  static Optional<String> problem() {
    if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
      return Optional.empty();
    }
    long limit = os.getMaxFileDescriptorCount();
    long jars = Arrays.stream(System.getProperty("java.class.path", "").split(File.pathSeparator))
        .filter(entry -> entry.toLowerCase(Locale.ROOT).endsWith(".jar")).count();
    long needed = jars + HEADROOM;
    if (limit >= needed) {
      return Optional.empty();
    }
    return Optional.of("too few file descriptors: this process may open " + limit + " files (ulimit -n) and needs "
        + "at least " + needed + " (" + jars + " jars on its class path, and " + HEADROOM + " for Spark's files and "
        + "sockets); raise the limit, e.g. ulimit -n 4096");
  }
}
