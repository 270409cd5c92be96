package org.bitopk.lab.baseline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One of the network lab's hook scripts, which {@code submit/netlab.sh} writes and names to the driver in an
 * environment variable, run with a time limit. Its output goes to a file, not a pipe the driver reads: a hook that
 * hangs, or leaves a process behind, with its output still open is then still stopped at the limit, and a hook
 * that exits is done whatever it left running.
 */
final class LabHook {
  /** The lines of a failed hook's output its error quotes, from the end. */
  private static final int QUOTED_LINES = 3;
  private static final long STOP_MILLIS = 5000;

  private final String variable;
  private final String path;
  private final long limitSeconds;
  private final boolean errorsInOutput;

  /**
   * @param variable the environment variable that named it, for its errors; @param path the script; @param
   * limitSeconds how long a run may take; @param errorsInOutput whether its standard error goes with its output
   * (else to the driver's)
   */
  LabHook(String variable, String path, long limitSeconds, boolean errorsInOutput) {
    this.variable = variable;
    this.path = path;
    this.limitSeconds = limitSeconds;
    this.errorsInOutput = errorsInOutput;
  }

  /** The hook as run with {@code args}, for an error: "the lab's hook PATH ARGS (VARIABLE)". */
  String named(String... args) {
    return "the lab's hook " + String.join(" ", command(args)) + " (" + variable + ")";
  }

  /**
   * Runs the hook with {@code args} and returns its output; {@code what} says what it does, for its errors ("set the
   * links to 100mbit").
   *
   * @throws IOException one line naming the hook, its arguments and {@code what}: it could not start, it exited
   *     with a status other than 0 (and its output's last lines), or it was still running after the limit (it
   *     and its child processes are then stopped)
   */
  String run(String what, String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile("bitopk-hook-", ".out");
    try {
      ProcessBuilder builder = new ProcessBuilder(command(args)).redirectOutput(out.toFile());
      if (errorsInOutput) {
        builder.redirectErrorStream(true);
      } else {
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
      }
      Process p;
      try {
        p = builder.start();
      } catch (IOException e) {
        throw new IOException(named(args) + " could not " + what + ": it did not start (" + e.getMessage() + ")", e);
      }
      p.getOutputStream().close();
      boolean finished;
      try {
        finished = p.waitFor(limitSeconds, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        stop(p);
        throw e;
      }
      if (!finished) {
        stop(p);
        throw new IOException(named(args) + " did not " + what + " within " + limitSeconds + " s (stopped, its "
            + "child processes too)");
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        String last = lastLines(output);
        throw new IOException(named(args) + " failed to " + what + " (exit status " + p.exitValue()
            + (last.isEmpty() ? "" : ": " + last) + ")");
      }
      return output;
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private List<String> command(String... args) {
    List<String> command = new ArrayList<>(List.of(path));
    command.addAll(List.of(args));
    return command;
  }

  /** The output's last non-blank lines, on one line. */
  private static String lastLines(String output) {
    List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    return lines.subList(Math.max(0, lines.size() - QUOTED_LINES), lines.size()).stream()
        .collect(Collectors.joining(" | "));
  }

  /**
   * SIGKILL to the hook and every process under it, listed first (once the hook is gone they are no longer its
   * descendants), then a bounded wait until they are gone.
   */
  private static void stop(Process p) throws InterruptedException {
    List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
    all.add(p.toHandle());
    all.forEach(ProcessHandle::destroyForcibly);
    long deadline = System.currentTimeMillis() + STOP_MILLIS;
    p.waitFor(STOP_MILLIS, TimeUnit.MILLISECONDS);
    while (all.stream().anyMatch(ProcessHandle::isAlive) && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
  }
}
