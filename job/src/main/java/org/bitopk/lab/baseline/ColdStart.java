package org.bitopk.lab.baseline;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleBiFunction;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.output.MachineEnvironment;
import org.jspecify.annotations.Nullable;

/**
 * {@code --cold}: each system measured as a user meets it, from the command to the target. The comparison's other
 * figures are warm (every system trains untimed before it is measured, {@link WarmedUpSystem}); a user's wall clock
 * starts at the command, so JVM start, Spark's start, the executors' start, reading the data, building the shards
 * and the JIT's first compilations are theirs to pay.
 *
 * <p>Each system at each link rate runs in a JVM of its own ({@link ChildJvm}: same java, options, class path and
 * Spark settings), a {@code time-to-accuracy} of that one system with no warm-up that stops at its first
 * evaluation at the target and writes its trace into {@code OUT/cold/LABEL/}. The seconds are the parent's
 * monotonic clock from launching the child to the moment its trace file exists with a point at the target
 * (polled every {@value #POLL_MILLIS} ms): one clock, no comparison between two processes' clocks. They include the
 * child's evaluations up to the target and the end of its run (bitopk writes its run directory, as a user's run
 * writes its model) — an upper bound on the user's wait by those, never a lower one.
 *
 * <p>The phase runs before the parent starts its own Spark context: on a standalone cluster an application takes
 * every core, so each child, a new application, gets new executors of its own while the parent holds none.
 */
final class ColdStart {
  /** The directory in OUT of the children's outputs and their logs. */
  static final String DIRECTORY = "cold";
  static final long POLL_MILLIS = 50;
  private static final long STOP_GRACE_SECONDS = 30;

  private final ComparisonSettings settings;
  private final List<String> passedOn;
  private final FileSystem fs;
  private final Path out;
  private final PrintWriter console;

  /**
   * @param settings the comparison's (each child gets its own budget)
   * @param passedOn options the children take as the command got them ({@code --master}, {@code --lr-choice})
   * @param out the comparison's output directory, qualified
   */
  ColdStart(ComparisonSettings settings, List<String> passedOn, FileSystem fs, Path out, PrintWriter console) {
    this.settings = settings;
    this.passedOn = List.copyOf(passedOn);
    this.fs = fs;
    this.out = out;
    this.console = console;
  }

  /**
   * The options a child takes as the command got them: {@code --master} (that of the context the command runs in,
   * when embedded) and {@code --lr-choice}.
   */
  static List<String> passedOn(@Nullable String master, @Nullable JavaSparkContext existing,
      @Nullable String lrChoice) {
    List<String> words = new ArrayList<>();
    if (master != null || existing != null) {
      words.addAll(List.of("--master", master != null ? master : existing.master()));
    }
    if (lrChoice != null) {
      words.addAll(List.of("--lr-choice", lrChoice));
    }
    return words;
  }

  /**
   * The bad combinations of {@code --cold}, as one message.
   *
   * @throws IllegalArgumentException naming --cold and what it cannot be combined with
   */
  static void check(boolean cold, boolean grid, Optional<JavaSparkContext> existing) {
    if (cold && grid) {
      throw new IllegalArgumentException("--cold: times each system from its command to the target, and --lr-grid "
          + "times nothing; choose the rates first, then pass --lr-choice with --cold");
    }
    if (cold && existing.isPresent() && !existing.get().master().startsWith("local")) {
      throw new IllegalArgumentException("--cold: each cold run is a Spark application of its own and needs the "
          + "cluster's executors free, but this command runs inside an application that holds them ("
          + existing.get().master() + "); run time-to-accuracy on its own");
    }
  }

  /**
   * Every system at every rate ({@code ""}: the links as they are) in a JVM of its own, one after another; the
   * lab's links are shaped to each rate first. Keyed by label (SYSTEM or SYSTEM@RATE).
   *
   * @param budget a system's training-clock budget at a label
   * @param late why no more children start ({@code --start-within} has passed), asked before each
   */
  Map<String, ColdResult> run(List<ComparedSystem> systems, List<String> rates, Optional<LabLinks> links,
      ToDoubleBiFunction<ComparedSystem, String> budget, Supplier<Optional<String>> late)
      throws IOException, InterruptedException {
    Map<String, ColdResult> results = new LinkedHashMap<>();
    int total = systems.size() * rates.size();
    int n = 0;
    for (String rate : rates) {
      String note = "";
      if (links.isPresent()) {
        console.println("links: " + rate + " for the cold runs, timing a transfer");
        console.flush();
        note = String.format(Locale.ROOT, "links %s (a timed transfer: %.1f Mbit/s); ", rate,
            links.get().reshape(rate));
      }
      for (ComparedSystem system : systems) {
        n++;
        String label = system.name() + (rate.isEmpty() ? "" : "@" + rate);
        String prefix = String.format(Locale.ROOT, "[cold %d/%d] %s: ", n, total, label);
        Optional<String> notRun = late.get();
        ColdResult result;
        if (notRun.isPresent()) {
          result = ColdResult.none(notRun.get());
        } else {
          console.println(prefix + "a JVM and Spark application of its own, no warm-up, timed from its launch");
          console.flush();
          result = measure(system, label, budget.applyAsDouble(system, label), note);
        }
        results.put(label, result);
        console.println(prefix + result.summary());
        console.flush();
      }
    }
    return results;
  }

  /** One child: launched, watched for its trace, stopped past its limit; its log copied next to its output. */
  private ColdResult measure(ComparedSystem system, String label, double budget, String note)
      throws IOException, InterruptedException {
    Path dir = new Path(out, DIRECTORY + Path.SEPARATOR + label);
    Path trace = new Path(dir, "trace-" + system.name() + ".csv");
    java.nio.file.Path log = Files.createTempFile("bitopk-cold-", ".log");
    double limit = wallLimit(budget);
    List<String> command = ChildJvm.command(arguments(system, dir, budget));
    long launched = System.nanoTime();
    Process child;
    try {
      child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    } catch (IOException e) {
      Files.delete(log);
      return ColdResult.none("FAILED: cannot start " + command.get(0) + ": " + e.getMessage());
    }
    Thread onExit = new Thread(() -> stop(child));   // the parent killed: no child left training
    Runtime.getRuntime().addShutdownHook(onExit);
    long traced = -1;
    boolean stopped = false;
    try {
      while (true) {
        boolean exited = child.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS);
        if (traced < 0 && fs.exists(trace)) {
          traced = System.nanoTime();
        }
        if (exited) {
          break;
        }
        if ((System.nanoTime() - launched) / 1e9 > limit) {
          stopped = true;
          break;
        }
      }
    } finally {
      stop(child);
      try {
        Runtime.getRuntime().removeShutdownHook(onExit);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook stops the child
      }
    }
    String lastLine = lastLine(log);
    fs.copyFromLocalFile(true, true, new Path(log.toUri()), new Path(out, DIRECTORY + Path.SEPARATOR + label
        + ".log"));
    long pid = childPid(dir).orElse(child.pid());
    String where = note + "own JVM, pid " + pid + ", and Spark application";
    String exit = stopped || child.exitValue() == 0 ? "" : "; exit status " + child.exitValue() + ": " + lastLine;
    Optional<TracePoint> reached = traced < 0 ? Optional.empty() : read(trace).firstReaching(settings.target());
    if (reached.isPresent()) {
      TracePoint p = reached.get();
      return ColdResult.reached((traced - launched) / 1e9, String.format(Locale.ROOT, "%s; its training clock "
          + "%s s to the target, at round %d; the rest is start-up, data, evaluations and the run's end%s", where,
          ComparisonTable.number(p.seconds()), p.rounds(), exit));
    }
    if (stopped) {
      return ColdResult.none(String.format(Locale.ROOT, "not within %s s: stopped, %s; %s", ComparisonTable.number(
          limit), traced < 0 ? "no trace" : "its trace without the target", where));
    }
    if (!exit.isEmpty() || traced < 0) {
      return ColdResult.none("FAILED: exit status " + child.exitValue() + ": " + lastLine + "; " + where);
    }
    Optional<String> failure = childFailure(dir);
    if (failure.isPresent()) {
      return ColdResult.none("FAILED: " + failure.get() + "; " + where);
    }
    String last = read(trace).last().map(p -> String.format(Locale.ROOT, " (%.2f %% at %s s)", 100 * p.accuracy(),
        ComparisonTable.number(p.seconds()))).orElse("");
    return ColdResult.none("not within its " + ComparisonTable.number(budget) + " s training budget" + last + "; "
        + where);
  }

  /** How long a child may run at all: its training budget twice, plus 300 s for start-up and evaluations. */
  static double wallLimit(double budget) {
    return 2 * budget + 300;
  }

  /** The child's command line: one system, no warm-up, stopping at the target, the comparison's settings. */
  List<String> arguments(ComparedSystem system, Path dir, double budget) {
    ComparisonSettings s = settings;
    List<String> a = new ArrayList<>(List.of("time-to-accuracy", "--out", dir.toString(), "--systems",
        system.name(), "--warm-up-seconds", "0", "--stop-at-target", "--target", Double.toString(s.target()),
        "--eval-every", Integer.toString(s.evalEvery()), "--max-seconds", Double.toString(budget), "--epochs",
        Integer.toString(s.epochs()), "--workers", Integer.toString(s.workers()), "--batch-size",
        Integer.toString(s.batchSize()), "--lr", Double.toString(s.learningRate()), "--density",
        Double.toString(s.density()), "--seed", Long.toString(s.seed()), "--dataset", s.dataset()));
    if (s.dataPath() != null) {
      a.addAll(List.of("--data", s.dataPath()));
    }
    a.addAll(passedOn);
    return a;
  }

  /** SIGTERM (Spark's shutdown hooks end its application), then, after a grace, SIGKILL; its children too. */
  private static void stop(Process child) {
    List<ProcessHandle> descendants = child.descendants().toList();
    if (child.isAlive()) {
      child.destroy();
      try {
        if (!child.waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS)) {
          child.destroyForcibly();
        }
      } catch (InterruptedException e) {
        child.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  /** The child's trace as it wrote it ({@link ComparisonTable#traceCsv}: no cell holds a comma). */
  private Trace read(Path trace) throws IOException {
    Trace.Builder points = new Trace.Builder();
    for (String line : text(trace).lines().skip(1).toList()) {
      String[] f = line.split(",", -1);
      points.add(new TracePoint(Long.parseLong(f[1]), Double.parseDouble(f[2]), f[3].isEmpty() ? 0
          : Long.parseLong(f[3]), Double.parseDouble(f[4]), Double.parseDouble(f[5])));
    }
    return points.build();
  }

  /** The failure its one row names ({@code FAILED: why; details}), if it failed. */
  private Optional<String> childFailure(Path dir) throws IOException {
    Path table = new Path(dir, ComparisonTable.FILE);
    if (!fs.exists(table)) {
      return Optional.empty();
    }
    List<String> lines = text(table).lines().toList();
    if (lines.size() < 2) {
      return Optional.empty();
    }
    String details = lines.get(1).substring(lines.get(1).indexOf(',') + 1).replaceFirst("^\"", "");
    if (!details.startsWith("FAILED: ")) {
      return Optional.empty();
    }
    String why = details.substring("FAILED: ".length());
    return Optional.of(why.contains("; ") ? why.substring(0, why.indexOf("; ")) : why);
  }

  /** The pid the child's environment.json records (its own), if it got that far. */
  private Optional<Long> childPid(Path dir) throws IOException {
    List<JsonNode> entries = MachineEnvironment.readAll(fs, dir);
    return entries.isEmpty() || !entries.get(entries.size() - 1).has("pid") ? Optional.empty()
        : Optional.of(entries.get(entries.size() - 1).get("pid").asLong());
  }

  private String text(Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The child's one-line failure ({@code bitopk: ...}) if it printed one, else its last line. */
  private static String lastLine(java.nio.file.Path log) throws IOException {
    List<String> lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines()
        .filter(l -> !l.isBlank()).toList();
    return lines.stream().filter(l -> l.startsWith("bitopk: ")).reduce((a, b) -> b)
        .orElse(lines.isEmpty() ? "no output" : lines.get(lines.size() - 1));
  }
}
