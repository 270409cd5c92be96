package org.bitopk.lab.baseline;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line of a JVM started as this one was: the same {@code java}, the same JVM options, the same class
 * path and the same Spark settings, running the job's entry point with other arguments. A cold run ({@link
 * ColdStart}) is such a JVM, so it pays every first-use cost this one paid.
 *
 * <p>Under {@code spark-submit} the application's jars are not on {@code java.class.path} but in a class loader of
 * Spark's, and the Spark settings ({@code --master}, {@code --conf}, spark-defaults.conf) are system properties the
 * launcher set after the JVM started: both are added here, so the child is a new Spark application on the same
 * cluster with the same configuration.
 */
final class ChildJvm {
  /** The job's entry point, as {@code submit/} starts it. */
  static final String ENTRY_POINT = "org.bitopk.cli.Main";

  private ChildJvm() {}

  /** {@code java}, this JVM's options, its class path and Spark settings, the entry point, {@code arguments}. */
  static List<String> command(List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> options = options();
    command.addAll(options);
    for (String key : System.getProperties().stringPropertyNames()) {
      if (key.startsWith("spark.") && options.stream().noneMatch(o -> o.startsWith("-D" + key + "="))) {
        command.add("-D" + key + "=" + System.getProperty(key));
      }
    }
    command.addAll(List.of("-cp", classPath(), ENTRY_POINT));
    command.addAll(arguments);
    return command;
  }

  /** This JVM's options, less a debugger's agent (its port is taken by this JVM). */
  static List<String> options() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(o -> !o.startsWith("-agentlib:jdwp") && !o.startsWith("-Xrunjdwp") && !o.equals("-Xdebug"))
        .toList();
  }

  /** {@code java.class.path}, then the jars of the class loaders that loaded this class (spark-submit's). */
  static String classPath() {
    Set<String> entries = new LinkedHashSet<>(Arrays.asList(System.getProperty("java.class.path")
        .split(File.pathSeparator)));
    for (ClassLoader l = ChildJvm.class.getClassLoader(); l != null; l = l.getParent()) {
      if (l instanceof URLClassLoader urls) {
        for (URL url : urls.getURLs()) {
          if ("file".equals(url.getProtocol())) {
            try {
              entries.add(Path.of(url.toURI()).toString());
            } catch (URISyntaxException e) {
              entries.add(url.getPath());
            }
          }
        }
      }
    }
    entries.remove("");
    return String.join(File.pathSeparator, entries);
  }
}
