package org.bitopk.job.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * Reads every process's command line ({@code /proc/PID/cmdline}, which any user of the machine may read) every
 * 50 ms while it is open, and remembers the processes whose command line held a given string, and which kinds
 * of Spark processes it saw at all, so that a test can tell a clean watch from one that looked at nothing.
 */
final class ProcessListWatch implements AutoCloseable {
  private static final Path PROC = Path.of("/proc");

  private final String needle;
  private final Set<String> holders = new ConcurrentSkipListSet<>();
  private final Set<String> seen = new ConcurrentSkipListSet<>();
  private final Thread thread;
  private volatile boolean open = true;

  private ProcessListWatch(String needle) {
    this.needle = needle;
    this.thread = new Thread(this::watch, "process-list-watch");
    thread.setDaemon(true);
    thread.start();
  }

  /** Starts watching for {@code needle}. */
  static ProcessListWatch start(String needle) {
    return new ProcessListWatch(needle);
  }

  /** "PID: the start of its command line" of every process whose command line held the string. */
  Set<String> holders() {
    return new TreeSet<>(holders);
  }

  /** Which of the given main classes appeared in some command line while watching. */
  Set<String> seen() {
    return new TreeSet<>(seen);
  }

  private static final Set<String> SPARK_PROCESSES = Set.of("org.apache.spark.deploy.SparkSubmit",
      "org.apache.spark.executor.CoarseGrainedExecutorBackend", "org.apache.spark.deploy.master.Master",
      "org.apache.spark.deploy.worker.Worker");

  private void watch() {
    while (open) {
      try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, "[0-9]*")) {
        for (Path process : processes) {
          String commandLine;
          try {
            commandLine = new String(Files.readAllBytes(process.resolve("cmdline")), StandardCharsets.UTF_8)
                .replace('\0', ' ');
          } catch (IOException gone) {
            continue;   // ended while listed
          }
          if (commandLine.contains(needle)) {
            holders.add(process.getFileName() + ": " + commandLine.substring(0, Math.min(300, commandLine.length())));
          }
          SPARK_PROCESSES.stream().filter(commandLine::contains).forEach(seen::add);
        }
        Thread.sleep(50);
      } catch (IOException e) {
        throw new IllegalStateException("cannot list " + PROC, e);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    open = false;
    thread.join(5_000);
  }
}
