package org.bitopk.job.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.bitopk.job.SparkJvmOpens;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executors' warm-up agent, in a JVM of its own started as Spark starts an executor with it: {@code premain}
 * starts the warm-up before {@code main}, on a thread of its own, and it rehearses a round to its end.
 */
class ExecutorWarmUpAgentTest {

  @Test
  void theAgentsArgumentIsItsPasses() {
    assertEquals(ExecutorWarmUpAgent.PASSES, ExecutorWarmUpAgent.passes(null), "no argument");
    assertEquals(ExecutorWarmUpAgent.PASSES, ExecutorWarmUpAgent.passes(" "), "a blank one");
    assertEquals(7, ExecutorWarmUpAgent.passes("passes=7"));
    for (String bad : List.of("passes=0", "passes=-1", "passes=x", "7", "passes=7,x")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ExecutorWarmUpAgent.passes(bad), bad);
      assertEquals("-javaagent:...=" + bad + ": expected passes=N, N a whole number from 1", e.getMessage());
    }
  }

  /**
   * The application jar's manifest names this class, and so do the submit scripts: the class the network lab's
   * agent jar names and the scripts' --warm-executors look for in a jar's manifest.
   */
  @Test
  void theJarsNameTheAgent() throws Exception {
    Path root = SparkJvmOpens.projectRoot();
    String entry = "Premain-Class>" + ExecutorWarmUpAgent.class.getName() + "</Premain-Class>";
    assertTrue(Files.readString(root.resolve("pom.xml")).contains("<" + entry), "pom.xml's shade manifest");
    assertTrue(Files.readString(root.resolve("submit/common.sh"))
        .contains("BITOPK_AGENT_CLASS=\"" + ExecutorWarmUpAgent.class.getName() + "\""), "submit/common.sh");
    assertTrue(Files.readString(root.resolve("submit/netlab.sh"))
        .contains("printf 'Premain-Class: %s\\n' \"$BITOPK_AGENT_CLASS\""), "submit/netlab.sh");
  }

  @Test
  void aJvmStartedWithTheAgentWarmsUpBeforeItsMainAndOnAThreadOfItsOwn(@TempDir Path tmp) throws Exception {
    Probed probed = probe(tmp, "passes=3");
    assertEquals(0, probed.exit(), probed.out());
    assertTrue(probed.out().contains("probe: started before main, still running on its own thread"), probed.out());
    assertTrue(probed.out().contains("probe: the executor's JVM warmed up in "), probed.out());
    assertTrue(probed.out().contains("(3 pass(es) of a round of 2 workers rehearsed)"), probed.out());
  }

  /** A wrong argument: one line, and the JVM goes on without the warm-up rather than stopping. */
  @Test
  void aWrongArgumentIsOneLineAndNoWarmUp(@TempDir Path tmp) throws Exception {
    Probed probed = probe(tmp, "passes=many");
    assertEquals(3, probed.exit(), probed.out());
    assertTrue(probed.out().contains("ERROR ExecutorWarmUpAgent: -javaagent:...=passes=many: expected passes=N, N a "
        + "whole number from 1; the executor starts without its warm-up"), probed.out());
    assertTrue(probed.out().contains("probe: no warm-up started"), probed.out());
    assertFalse(probed.out().contains("\tat "), "no stack trace: " + probed.out());
  }

  private record Probed(int exit, String out) {}

  /** Runs {@link Probe} in a JVM started with the agent and {@code argument}, as Spark starts an executor. */
  private static Probed probe(Path tmp, String argument) throws Exception {
    Path agent = tmp.resolve("warm-up-agent.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Premain-Class", ExecutorWarmUpAgent.class.getName());
    try (OutputStream out = Files.newOutputStream(agent); JarOutputStream jar = new JarOutputStream(out, manifest)) {
      // a jar that only names the class, found on the JVM's class path as on an executor's
    }
    Path log4j = tmp.resolve("log4j2.properties");
    Files.writeString(log4j, String.join("\n", "rootLogger.level = warn", "rootLogger.appenderRef.e.ref = e",
        "appender.e.type = Console", "appender.e.name = e", "appender.e.layout.type = PatternLayout",
        "appender.e.layout.pattern = %p %c{1}: %m%n", "logger.b.name = org.bitopk", "logger.b.level = info", ""));
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(SparkJvmOpens.options());   // as the executors' JVMs start
    command.addAll(List.of("-Dlog4j2.configurationFile=" + log4j.toUri(), "-javaagent:" + agent + "=" + argument,
        "-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(tmp.resolve("out").toFile()).start();
    assertTrue(process.waitFor(180, TimeUnit.SECONDS), "the probe's JVM ends");
    return new Probed(process.exitValue(), Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8));
  }

  /** The JVM's main: whether the agent's warm-up had started before it, on which thread it ran, what it said. */
  static final class Probe {
    public static void main(String[] args) throws Exception {
      if (ExecutorWarmUpAgent.started().isEmpty()) {
        System.out.println("probe: no warm-up started");
        System.exit(3);
      }
      // loading ND4J alone takes longer than a JVM takes from premain to main: still running, premain did not wait
      boolean running = !ExecutorWarmUpAgent.started().get().isDone();
      boolean ownThread = Thread.getAllStackTraces().keySet().stream()
          .anyMatch(t -> t.getName().equals("bitopk-executor-warm-up") && t.isDaemon());
      System.out.println("probe: started before main" + (running && ownThread ? ", still running on its own thread"
          : ", done=" + !running + " ownThread=" + ownThread));
      System.out.println("probe: " + ExecutorWarmUpAgent.started().get().get(150, TimeUnit.SECONDS));
    }

    private Probe() {}
  }
}
