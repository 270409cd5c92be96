package org.bitopk.lab.network;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bitopk.job.SparkJvmOpens;

/**
 * One invocation of {@code submit/netlab.sh} started by a test: the lab runs on the test JVM's class path (no
 * build) with its console in a log file. Labs may run side by side: each names its namespaces, links and
 * processes after its own PID ({@link #prefix()}). A lab still running after {@link #LIMIT_SECONDS} s, or still
 * running when the test closes it, is stopped with SIGTERM, on which it tears itself down.
 */
final class NetlabRun implements AutoCloseable {
  private static final Path NETLAB = SparkJvmOpens.projectRoot().resolve("submit/netlab.sh");
  private static final long LIMIT_SECONDS = 420;

  private final Process process;
  private final Path log;

  private NetlabRun(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code netlab.sh ARGS}, its console (standard output and error) into {@code log}. */
  static NetlabRun start(Path log, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(List.of(NETLAB.toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("BITOPK_CLASSPATH", System.getProperty("java.class.path"));
    // nothing a test asserts depends on the lab's speed: its JVMs start as cheaply as the tests' other JVMs
    builder.environment().put("BITOPK_LAB_JAVA_OPTIONS", org.bitopk.job.ChildJvmOptions.joined());
    return new NetlabRun(builder.start(), log);
  }

  /** The prefix of every name the lab gives what it creates: bk, its PID, a dash. */
  String prefix() {
    return "bk" + process.pid() + "-";
  }

  /** Waits for the lab to end and returns its console output; a lab past the limit is stopped and fails. */
  String await() throws IOException, InterruptedException {
    if (!process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
      close();
      throw new AssertionError("netlab.sh still running after " + LIMIT_SECONDS + " s; log:\n"
          + Files.readString(log));
    }
    return Files.readString(log);
  }

  int exitValue() {
    return process.exitValue();
  }

  /** Stops the lab if it still runs (SIGTERM: it tears itself down) and waits for it. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      process.waitFor(60, TimeUnit.SECONDS);
    }
  }

  /** Namespaces, links in this namespace and processes whose names or command lines carry the prefix. */
  static List<String> leftovers(String prefix) throws IOException, InterruptedException {
    List<String> found = new ArrayList<>();
    for (String line : run("ip", "netns", "list")) {
      if (line.startsWith(prefix)) {
        found.add("namespace " + line);
      }
    }
    for (String line : run("ip", "-o", "link", "show")) {
      if (line.contains(prefix)) {
        found.add("link " + line);
      }
    }
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.filter(p -> p.getFileName().toString().matches("[0-9]+")).toList()) {
        try {
          String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
          if (cmdline.contains(prefix)) {
            found.add("process " + proc.getFileName() + ": " + cmdline.replace('\0', ' '));
          }
        } catch (IOException gone) {
          // ended while we looked
        }
      }
    }
    return found;
  }

  private static List<String> run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    p.waitFor(10, TimeUnit.SECONDS);
    return lines;
  }

  /** Empty when this JVM may create network namespaces (CAP_NET_ADMIN and CAP_SYS_ADMIN), else why not. */
  static String missingPrivileges() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("CapEff:")) {
        long caps = Long.parseUnsignedLong(line.substring(7).trim(), 16);
        boolean netAdmin = (caps >> 12 & 1) == 1;
        boolean sysAdmin = (caps >> 21 & 1) == 1;
        return netAdmin && sysAdmin ? "" : "the network lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN)";
      }
    }
    return "no CapEff line in /proc/self/status: cannot tell whether network namespaces may be created";
  }
}
