package org.bitopk.lab.reproduction;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;
import org.jspecify.annotations.Nullable;

/**
 * Time to accuracy on the network lab's shaped links: the output of {@code time-to-accuracy --rates} run under
 * {@code submit/netlab.sh}, whose rows are {@code SYSTEM@RATE}. Per rate a table (seconds and MiB to the target,
 * final accuracy, the learning rate chosen from the grid); then, per system, its time unshaped (the shared CPU
 * and Spark: the same hosts with nothing capping the links) beside what each shaped rate added (the links' cost);
 * the three targets at 100 Mbit/s, judged like the DL4J goals ({@link TimeToAccuracySection}: a reference that
 * did not reach the target gives a lower bound, against which a target can hold but never fail); one chart per
 * rate. The same output of a comparison against PyTorch DDP ({@link Kind#DDP}) gets the DDP targets instead, at
 * 100 Mbit/s and 1 Gbit/s. An output that measured where its rounds' time went shows the split per row.
 */
final class LabTimeToAccuracySection {
  /** Which comparison the output is, which decides its targets. */
  enum Kind {
    /** bitopk's systems and DL4J's masters: "Time to accuracy on shaped links". */
    DL4J,
    /** bitopk against PyTorch DDP's systems: "Time to accuracy against PyTorch DDP". */
    DDP
  }

  /** The DDP targets: per rate, the largest ratio of bidirectional's time to the best DDP system's. */
  static final List<Map.Entry<String, Double>> DDP_TARGETS = List.of(Map.entry("100mbit", 0.5),
      Map.entry("1gbit", 1.0));

  static final String LINKS = "links.csv";
  static final List<String> LINK_COLUMNS = List.of("rate", "probe_mbit_per_second", "executors", "task_slots",
      "lab");
  /** The rate of the targets (BytePS's 6× was measured at the same cap). */
  static final String TARGET_RATE = "100mbit";
  private static final String UNSHAPED = "none";
  private static final String FAILED = "FAILED";

  private final Kind kind;
  private final MeasuredOutput output;
  private final CsvTable links;
  private final List<Path> charts;

  private LabTimeToAccuracySection(Kind kind, MeasuredOutput output, CsvTable links, List<Path> charts) {
    this.kind = kind;
    this.output = output;
    this.links = links;
    this.charts = List.copyOf(charts);
  }

  /** A section of outputs already read (tests). */
  static LabTimeToAccuracySection of(MeasuredOutput output, CsvTable links, List<Path> charts) {
    return of(Kind.DL4J, output, links, charts);
  }

  /** A section of {@code kind} of outputs already read (tests). */
  static LabTimeToAccuracySection of(Kind kind, MeasuredOutput output, CsvTable links, List<Path> charts) {
    return new LabTimeToAccuracySection(kind, output, links.requireHeader(LINK_COLUMNS), charts);
  }

  /**
   * Reads the output directory; it must hold links.csv and one chart per rate besides what any time-to-accuracy
   * output holds.
   *
   * @throws BadInputException one line naming {@code flag} and the file
   */
  static LabTimeToAccuracySection read(String flag, String directory, Configuration conf) {
    return read(Kind.DL4J, flag, directory, conf);
  }

  /** As {@link #read(String, String, Configuration)}, the output of a comparison of {@code kind}. */
  static LabTimeToAccuracySection read(Kind kind, String flag, String directory, Configuration conf) {
    MeasuredOutput output = MeasuredOutput.read(flag, directory, TimeToAccuracySection.CSV,
        TimeToAccuracySection.COLUMNS, TimeToAccuracySection.EARLIER_VERSIONS, null, conf);
    Path dir = new Path(directory);
    try {
      FileSystem fs = dir.getFileSystem(conf);
      Path file = new Path(dir, LINKS);
      if (!fs.exists(file)) {
        throw new BadInputException(flag + ": " + file + " is missing (written by time-to-accuracy --rates on the "
            + "network lab)");
      }
      String text;
      try (InputStream in = fs.open(file)) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      CsvTable links;
      try {
        links = CsvTable.parse(file.toString(), text).requireHeader(LINK_COLUMNS);
      } catch (BadInputException e) {
        throw new BadInputException(flag + ": " + e.getMessage(), e);
      }
      List<Path> charts = new ArrayList<>();
      for (Map<String, String> row : links.rows()) {
        Path chart = new Path(dir, "time-to-accuracy@" + row.get("rate") + ".png");
        if (!fs.exists(chart)) {
          throw new BadInputException(flag + ": " + chart + " is missing");
        }
        charts.add(chart);
      }
      return new LabTimeToAccuracySection(kind, output, links, charts);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + directory + ": " + e.getMessage(), e);
    }
  }

  MeasuredOutput output() {
    return output;
  }

  /** The lab's command line up to the job's, as links.csv records it. */
  String launcher() {
    return "sudo " + links.rows().get(0).get("lab") + " -- ";
  }

  /** One chart per rate: accuracy against training seconds and against bytes. */
  List<Path> charts() {
    return charts;
  }

  String markdown() {
    CsvTable t = output.table();
    boolean split = t.has(TimeToAccuracySection.SPLIT_COLUMNS.get(0));
    // rate -> system -> row, in the order measured
    Map<String, Map<String, Map<String, String>>> byRate = new LinkedHashMap<>();
    for (Map<String, String> link : links.rows()) {
      byRate.put(link.get("rate"), new LinkedHashMap<>());
    }
    for (Map<String, String> row : t.rows()) {
      String name = row.get("system");
      int at = name.lastIndexOf('@');
      if (at > 0 && byRate.containsKey(name.substring(at + 1))) {
        byRate.get(name.substring(at + 1)).put(name.substring(0, at), row);
      }
    }
    StringBuilder b = new StringBuilder();
    boolean cold = TimeToAccuracySection.measuredCold(t);
    Map<String, String> first = links.rows().get(0);
    b.append(String.format(Locale.ROOT, "The lab: %s; %s executors with %s task slots in all (one executor per "
        + "worker host), the driver on a host of its own; every link shaped to the rate in both directions. Target "
        + "%s %% test accuracy. Seconds are training clock (evaluations and start-up excluded).%n%n",
        first.get("lab"), first.get("executors"), first.get("task_slots"),
        Numbers.fixed(100 * t.number(t.rows().get(0), "target_accuracy"), 1)));
    for (Map<String, String> link : links.rows()) {
      String rate = link.get("rate");
      b.append("**Links ").append(rate).append("** (a timed transfer between two hosts: ")
          .append(Numbers.fixed(Double.parseDouble(link.get("probe_mbit_per_second")), 1)).append(" Mbit/s)\n\n")
          .append("| system | lr | seconds to target | MiB to target | final accuracy (%) | wall s | MiB total | "
              + "s/round, first rounds / later |").append(cold ? " " + TimeToAccuracySection.COLD_HEADER + " |" : "")
          .append(split ? " ms/round: compute / communication / rest |" : "")
          .append("\n|---|---|---|---|---|---|---|---|").append(cold ? "---|" : "").append(split ? "---|" : "")
          .append('\n');
      for (Map.Entry<String, Map<String, String>> e : byRate.get(rate).entrySet()) {
        Map<String, String> row = e.getValue();
        b.append("| ").append(e.getKey()).append(" | ").append(learningRate(row.get("details"))).append(" | ")
            .append(toTarget(t, row, "seconds_to_target", Numbers.fixed(t.number(row, "seconds_to_target"), 1)))
            .append(" | ").append(toTarget(t, row, "bytes_to_target", Numbers.mib(t.number(row, "bytes_to_target"))))
            .append(" | ").append(Numbers.percent(t.number(row, "final_accuracy"))).append(" | ")
            .append(Numbers.fixed(t.number(row, "wall_seconds"), 1)).append(" | ")
            .append(Numbers.mib(t.number(row, "bytes_total"))).append(" | ").append(pace(row.get("details")))
            .append(cold ? " | " + TimeToAccuracySection.cold(t, row) : "").append(split ? " | " + split(t, row) : "")
            .append(" |\n");
      }
      b.append('\n');
      for (Map.Entry<String, Map<String, String>> e : byRate.get(rate).entrySet()) {
        if (failed(e.getValue())) {
          b.append("- ").append(e.getKey()).append(" failed: ").append(failure(e.getValue().get("details")))
              .append('\n');
        }
      }
      if (byRate.get(rate).values().stream().anyMatch(LabTimeToAccuracySection::failed)) {
        b.append('\n');
      }
    }
    if (cold) {
      b.append(TimeToAccuracySection.COLD_NOTE).append("\n\n");
    }
    costs(b, t, byRate);
    if (split) {
      b.append("ms/round: where a round's training clock went, mean over the measured rounds (job/docs/"
          + "time-to-accuracy.md, \"Where the time goes\"): bitopk's compute is its tasks' critical path, its "
          + "communication the rest of the Spark job; DDP's compute is rank 0's forward and backward, its "
          + "communication the all-reduces' time after the last gradient was ready.\n\n");
    }
    if (kind == Kind.DL4J) {
      targets(b, t, byRate.getOrDefault(TARGET_RATE, Map.of()));
    } else {
      ddpTargets(b, t, byRate);
    }
    b.append("Each row's details (the learning-rate grid's outcome, bitopk's settings, ")
        .append(kind == Kind.DL4J ? "DL4J's" : "PyTorch's").append(") are in `").append(TimeToAccuracySection.CSV)
        .append("`.\n\n");
    return b.toString();
  }

  /** A row's split as "compute / communication / rest" ms per round, "–" where it has none. */
  private static String split(CsvTable t, Map<String, String> row) {
    double[] m = TimeToAccuracySection.SPLIT_COLUMNS.stream().mapToDouble(c -> t.number(row, c)).toArray();
    return Double.isNaN(m[0]) ? Numbers.NONE : Numbers.fixed(m[0], 1) + " / " + Numbers.fixed(m[1], 1) + " / "
        + Numbers.fixed(m[2], 1);
  }

  /** bitopk bidirectional against every DDP system, at each rate of {@link #DDP_TARGETS}. */
  private static void ddpTargets(StringBuilder b, CsvTable t, Map<String, Map<String, Map<String, String>>> byRate) {
    b.append("**Targets.**\n\n| target | ours | reference | ratio | met |\n|---|---|---|---|---|\n");
    for (Map.Entry<String, Double> target : DDP_TARGETS) {
      String rate = target.getKey();
      String name = "bidirectional ≤ " + Numbers.fixed(target.getValue(), 1) + "× the best DDP system's time at "
          + rate;
      Map<String, Map<String, String>> rows = byRate.get(rate);
      if (rows == null) {
        b.append("| ").append(name).append(" | not measured at ").append(rate).append(" | – | – | not measured |\n");
        continue;
      }
      List<TimeToAccuracySection.Figure> ddp = new ArrayList<>();
      for (Map.Entry<String, Map<String, String>> e : rows.entrySet()) {
        if (e.getKey().startsWith("ddp-") && !failed(e.getValue())) {
          ddp.add(TimeToAccuracySection.figure(t, e.getValue(), "seconds_to_target", "wall_seconds"));
        }
      }
      double bound = target.getValue();
      TimeToAccuracySection.goal(b, name, ours(t, rows), ddp, "s", r -> r <= bound);
    }
    b.append('\n');
  }

  /** bitopk bidirectional's time to the target among {@code rows}; null when it failed or did not reach it. */
  private static TimeToAccuracySection.@Nullable Figure ours(CsvTable t, Map<String, Map<String, String>> rows) {
    Map<String, String> bidirectional = rows.get("bitopk-bidirectional");
    if (bidirectional == null || failed(bidirectional)
        || Double.isNaN(t.number(bidirectional, "seconds_to_target"))) {
      return null;
    }
    return new TimeToAccuracySection.Figure(bidirectional.get("system"), t.number(bidirectional,
        "seconds_to_target"), false);
  }

  /** Per system: seconds to the target unshaped (CPU and Spark), and what each shaped rate added (the links). */
  private static void costs(StringBuilder b, CsvTable t, Map<String, Map<String, Map<String, String>>> byRate) {
    Map<String, Map<String, String>> unshaped = byRate.get(UNSHAPED);
    if (unshaped == null) {
      return;
    }
    List<String> shaped = byRate.keySet().stream().filter(r -> !r.equals(UNSHAPED)).toList();
    b.append("**What the links cost.** Seconds to the target on the same hosts unshaped (the shared CPU, Spark and "
        + "the job: no link caps anything), and per shaped rate the seconds it added to that:\n\n| system | "
        + "unshaped s |");
    for (String r : shaped) {
      b.append(' ').append(r).append(" s | links' share at ").append(r).append(" |");
    }
    b.append("\n|---|---|").append("---|---|".repeat(shaped.size())).append('\n');
    for (Map.Entry<String, Map<String, String>> e : unshaped.entrySet()) {
      double base = t.number(e.getValue(), "seconds_to_target");
      b.append("| ").append(e.getKey()).append(" | ").append(seconds(t, e.getValue())).append(" |");
      for (String r : shaped) {
        Map<String, String> row = byRate.get(r).get(e.getKey());
        double s = row == null ? Double.NaN : t.number(row, "seconds_to_target");
        b.append(' ').append(row == null ? Numbers.NONE : seconds(t, row)).append(" | ")
            .append(Double.isNaN(s) || Double.isNaN(base) ? Numbers.NONE
                : Numbers.signed(s - base, 1) + " s (" + Numbers.fixed(100 * (s - base) / s, 0) + " %)")
            .append(" |");
      }
      b.append('\n');
    }
    b.append("\n“not within N s”: the system did not reach the target in its budget.\n\n");
  }

  private static void targets(StringBuilder b, CsvTable t, Map<String, Map<String, String>> rows) {
    b.append("**Targets at ").append(TARGET_RATE).append(".**\n\n| target | ours | reference | ratio | met |\n"
        + "|---|---|---|---|---|\n");
    TimeToAccuracySection.Figure ours = ours(t, rows);
    List<TimeToAccuracySection.Figure> dense = new ArrayList<>();
    List<TimeToAccuracySection.Figure> unidirectional = new ArrayList<>();
    List<TimeToAccuracySection.Figure> masters = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> e : rows.entrySet()) {
      Map<String, String> row = e.getValue();
      if (failed(row)) {
        continue;
      }
      TimeToAccuracySection.Figure f = TimeToAccuracySection.figure(t, row, "seconds_to_target", "wall_seconds");
      if (e.getKey().equals("bitopk-dense")) {
        dense.add(f);
      } else if (e.getKey().equals("bitopk-unidirectional")) {
        unidirectional.add(f);
      } else if (!e.getKey().startsWith("bitopk") && !e.getKey().contains("single")) {
        masters.add(f);
      }
    }
    TimeToAccuracySection.goal(b, "bidirectional ≤ 1/6 of bitopk dense's time", ours, dense, "s",
        r -> r <= 1.0 / 6);
    TimeToAccuracySection.goal(b, "bidirectional ≤ 0.1× the best DL4J master's time", ours, masters, "s",
        r -> r <= 0.1);
    TimeToAccuracySection.goal(b, "bidirectional ≥ 1.3× faster than unidirectional (ratio ≤ 1/1.3 = 0.769)", ours,
        unidirectional, "s", r -> r <= 1 / 1.3);
    b.append('\n');
  }

  private static boolean failed(Map<String, String> row) {
    return row.get("details").startsWith(FAILED);
  }

  private static String seconds(CsvTable t, Map<String, String> row) {
    return toTarget(t, row, "seconds_to_target", Numbers.fixed(t.number(row, "seconds_to_target"), 1));
  }

  /** The figure to the target, or why there is none: failed, or not within the system's training seconds. */
  private static String toTarget(CsvTable t, Map<String, String> row, String column, String figure) {
    if (!Double.isNaN(t.number(row, column))) {
      return figure;
    }
    if (failed(row)) {
      return "failed";
    }
    if (column.startsWith("bytes") && !Double.isNaN(t.number(row, "seconds_to_target"))) {
      return "not counted";
    }
    return "not within " + Numbers.fixed(t.number(row, "wall_seconds"), 0) + " s";
  }

  /**
   * A row's pace as its details give it ("pace: first 40 rounds 0.0750 s/round, later 240 rounds 0.0720
   * s/round"): "0.075 (40) / 0.072", else "–".
   */
  static String pace(String details) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "pace: first ([0-9]+) rounds ([0-9.]+) s/round, later [0-9]+ rounds ([0-9.]+) s/round").matcher(details);
    return m.find() ? Numbers.fixed(Double.parseDouble(m.group(2)), 3) + " (" + m.group(1) + ") / "
        + Numbers.fixed(Double.parseDouble(m.group(3)), 3) : Numbers.NONE;
  }

  /** Why a failed row failed: its details from "FAILED: " up to the lab's note on the links. */
  static String failure(String details) {
    String reason = details.substring(FAILED.length()).replaceFirst("^:\\s*", "");
    int links = reason.indexOf("; links ");
    return links >= 0 ? reason.substring(0, links) : reason;
  }

  /** The learning rate a row's details name ("lr 0.1 chosen ..." or "SGD lr 0.1"), else "–". */
  static String learningRate(String details) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\blr ([0-9.eE+-]+)").matcher(details);
    return m.find() ? m.group(1) : Numbers.NONE;
  }
}
