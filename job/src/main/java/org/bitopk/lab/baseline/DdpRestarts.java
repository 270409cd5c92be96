package org.bitopk.lab.baseline;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A DDP run kept going through a failure as TorchDistributor's user keeps it: when its barrier stage fails (Spark
 * aborts a barrier job as soon as one of its tasks fails, e.g. when the executor of a cut host is declared lost), it
 * is started again, a new barrier stage with a new rendezvous, from the newest checkpoint rank 0 wrote ({@code
 * ddp_peer.py --checkpoint}: at the start and at every evaluation), once the application has its executors back
 * (a barrier stage needs all its task slots at once). The restarted rank 0's clock is the checkpoint's plus every
 * wall-clock second since it was written, so the time to the target counts the rounds lost, the failure and the
 * restart. Only a run with a fault planned restarts, at most {@value #MAX_RESTARTS} times; another run's failure is
 * its result, as before.
 */
final class DdpRestarts {
  static final int MAX_RESTARTS = 2;
  /** The file, in the run directory, in which rank 0 names the round of its newest complete checkpoint. */
  static final String CHECKPOINT_ROUND = "checkpoint-round";
  /** The file, in the run directory, of rank 0's rounds completed. */
  static final String PROGRESS = "progress";

  private static final Pattern LOST = Pattern.compile("ExecutorLostFailure \\(executor (\\S+) ");

  private DdpRestarts() {}

  /** One barrier stage of the run: each rank's line ("rank TAB host TAB status TAB last line"). */
  interface Stage {
    List<String> run() throws Exception;
  }

  /**
   * The last stage's rank lines (none when it was aborted), the failure that ended the run (null: none), and what
   * the restarts were ("" without any: "; failed ...; restarted ...").
   */
  record Outcome(List<String> ranks, @Nullable String failure, String history) {}

  static Outcome run(ComparedSystem.Context context, Path runDir, Stage stage) throws Exception {
    RunFault fault = context.fault();
    int before = ExecutorCount.of(context.sc()).getAsInt();
    Set<String> lost = new HashSet<>();
    long started = System.nanoTime();
    StringBuilder history = new StringBuilder();
    for (int attempt = 0; ; attempt++) {
      List<String> ranks = List.of();
      String failure;
      try (ProgressFile progress = ProgressFile.follow(runDir.resolve(PROGRESS), fault)) {
        ranks = stage.run();
        failure = failure(ranks);
      } catch (org.apache.spark.SparkException e) {
        failure = summary(e.getMessage());
        lost.addAll(lostExecutors(e.getMessage()));
      }
      if (failure == null || !fault.planned() || attempt == MAX_RESTARTS) {
        return new Outcome(ranks, failure, history.toString());
      }
      String when = fault.sinceStrike().isEmpty() ? String.format(Locale.ROOT, "%.1f s into the run",
          (System.nanoTime() - started) / 1e9) : fault.sinceStrike();
      OptionalLong round = ProgressFile.read(runDir.resolve(CHECKPOINT_ROUND));
      IntSupplier executors = ExecutorCount.of(context.sc(), lost);
      say(context.console(), context.label() + ": failed " + when + " (" + failure + "); restarting from "
          + (round.isPresent() ? "the checkpoint at round " + round.getAsLong() : "the start, no checkpoint")
          + " once the application has its " + before + " executors (" + executors.getAsInt() + " now)");
      long waiting = System.nanoTime();
      boolean back = ExecutorCount.await(executors, before, ExecutorCount.WAIT_SECONDS);
      history.append(String.format(Locale.ROOT, "; failed %s (%s); restarted %.1f s later%s from %s", when, failure,
          (System.nanoTime() - waiting) / 1e9, back ? ", its executors back," : " with " + executors.getAsInt() + " of "
          + before + " executors", round.isPresent() ? "the checkpoint at round " + round.getAsLong()
          : "the start (no checkpoint)"));
    }
  }

  /** The first rank that did not exit with 0, as "rank R on HOST exited with S: its last line"; null if none. */
  static @Nullable String failure(List<String> ranks) {
    for (String rank : ranks) {
      String[] parts = rank.split("\t", 4);
      if (!parts[2].equals("0")) {
        return "rank " + parts[0] + " on " + parts[1] + " exited with " + parts[2] + ": " + parts[3];
      }
    }
    return null;
  }

  /** The executors an aborted job's message says were lost ("ExecutorLostFailure (executor 2 exited ..."). */
  static Set<String> lostExecutors(String message) {
    Set<String> ids = new HashSet<>();
    Matcher m = LOST.matcher(String.valueOf(message));
    while (m.find()) {
      ids.add(m.group(1));
    }
    return ids;
  }

  /** An aborted job's message in one line: its first line and the task failure's reason under it. */
  static String summary(String message) {
    List<String> lines = String.valueOf(message).lines().map(String::strip).filter(l -> !l.isEmpty()
        && !l.startsWith("Driver stacktrace") && !l.startsWith("at ")).toList();
    String text = lines.isEmpty() ? "no message" : lines.size() == 1 ? lines.get(0)
        : lines.get(0) + " " + lines.get(1);
    return text.length() <= 300 ? text : text.substring(0, 297) + "...";
  }

  private static void say(PrintWriter console, String line) {
    synchronized (console) {
      console.println("[restart] " + line);
      console.flush();
    }
  }
}
