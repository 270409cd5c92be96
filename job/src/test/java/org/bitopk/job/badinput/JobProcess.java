package org.bitopk.job.badinput;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bitopk.cli.Main;
import org.bitopk.job.ChildJvmOptions;
import org.bitopk.job.SparkJvmOpens;

/**
 * The job as a user runs it ({@code submit/run-local.sh}): its own JVM running {@link Main#main}, so that
 * what reaches the real stderr (Spark's and DL4J's logging, traces of other threads, signals) is what the
 * test sees.
 */
final class JobProcess {
  /**
   * A shell starts background commands with SIGINT ignored, and an ignored signal stays ignored through every
   * fork and exec down to the job's JVM, which then cannot handle it (HotSpot refuses a handler for a signal
   * ignored at start): a test suite run in the background (`mvn test &`, nohup, a CI runner) would send Ctrl-C
   * to a job that never hears it. GNU env resets the two signals to their defaults before the JVM starts.
   */
  private static final List<String> DEFAULT_SIGNALS = defaultSignals();

  private final Process process;
  private final Path stdout;
  private final Path stderr;

  /** Exit code and both streams of a finished job. */
  record Finished(int code, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  private JobProcess(Process process, Path stdout, Path stderr) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /** Starts the job with {@code args}; its streams go to files in {@code logs}. */
  static JobProcess start(Path logs, List<String> args) throws IOException {
    return start(logs, List.of(), args);
  }

  /** Starts the job with {@code args} in a JVM with the extra options {@code jvmOptions} (e.g. -D settings). */
  static JobProcess start(Path logs, List<String> jvmOptions, List<String> args) throws IOException {
    return start(logs, List.of(), jvmOptions, args);
  }

  /**
   * Starts the job's JVM through {@code launcher}, a command that runs the rest of its command line in a changed
   * process (e.g. {@code prlimit --nofile=256 --}).
   */
  static JobProcess start(Path logs, List<String> launcher, List<String> jvmOptions, List<String> args)
      throws IOException {
    Files.createDirectories(logs);
    List<String> command = new ArrayList<>(DEFAULT_SIGNALS);
    command.addAll(launcher);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.addAll(ChildJvmOptions.CHEAP_START);
    command.addAll(SparkJvmOpens.options());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(args);
    Path out = Files.createTempFile(logs, "stdout-", ".txt");
    Path err = Files.createTempFile(logs, "stderr-", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("OMP_NUM_THREADS", "1");
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return new JobProcess(builder.start(), out, err);
  }

  private static List<String> defaultSignals() {
    List<String> env = List.of("env", "--default-signal=INT,TERM");
    try {
      List<String> probe = new ArrayList<>(env);
      probe.add("true");
      if (new ProcessBuilder(probe).start().waitFor() == 0) {
        return env;
      }
    } catch (IOException e) {
      // no such env: start the JVM directly, with whatever dispositions the test runner has
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return List.of();
  }

  /** Runs the job to its end. */
  static Finished run(Path logs, List<String> args, Duration timeout) throws IOException, InterruptedException {
    return start(logs, args).await(timeout);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits until the JVM has opened a jar of the class path whose name contains {@code name}: the job's code has
   * come as far as loading that library (the JDK's own classes come from its modules image, the job's from class
   * directories).
   */
  void awaitJarOpened(String name, Duration timeout) throws IOException, InterruptedException {
    Path fds = Path.of("/proc", Long.toString(process.pid()), "fd");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline && process.isAlive()) {
      try (java.util.stream.Stream<Path> open = Files.list(fds)) {
        if (open.anyMatch(fd -> {
          try {
            String target = Files.readSymbolicLink(fd).getFileName().toString();
            return target.endsWith(".jar") && target.contains(name);
          } catch (IOException closed) {
            return false;
          }
        })) {
          return;
        }
      } catch (IOException gone) {
        // the process ended or /proc is unavailable: the caller's checks report it
        return;
      }
      Thread.sleep(10);
    }
  }

  /** Sends {@code signal} (e.g. "INT", "TERM") to the job's JVM. */
  void signal(String signal) throws IOException, InterruptedException {
    int code = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    if (code != 0) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed with " + code);
    }
  }

  Finished await(Duration timeout) throws IOException, InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the job did not end within " + timeout + "; stderr:\n" + read(stderr));
    }
    return new Finished(process.exitValue(), read(stdout), read(stderr));
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
