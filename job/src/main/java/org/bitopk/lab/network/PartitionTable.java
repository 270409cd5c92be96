package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The partition experiment's table ({@code submit/netlab-partitions.sh}): for the undisturbed lab run and each
 * run whose worker host was cut off by a {@code down=SECONDS} fault, the round that waited and for how long, when
 * Spark declared the host's executor lost and by which of its timeouts, when the waiting round ended, the lost
 * residuals and replica resyncs, the final accuracy against the undisturbed run's, the rounds run after the host
 * came back and whether it got work again. Everything is read from what the lab and the run wrote: netlab.json
 * (fault times, the counters' timeline), the run's metrics, the driver's, the Master's and the executors' logs.
 *
 * <p>Usage: {@code PartitionTable EXPERIMENT_DIR}: every lab directory under it ({@code none}, {@code down-30},
 * ...) becomes one row; writes {@code partitions.json} and {@code partitions.txt} (the table, in Markdown) there
 * and prints the table.
 */
public final class PartitionTable {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The lab's log layout ({@code HH:mm:ss.SSS}) and the job's default one ({@code yy/MM/dd HH:mm:ss}). */
  private static final Pattern LOG_TIME =
      Pattern.compile("^(?:(\\d\\d/\\d\\d/\\d\\d) )?(\\d\\d:\\d\\d:\\d\\d(?:\\.\\d{3})?) ");
  /**
   * The task scheduler's line when the driver removes an executor, with the reason: "worker lost" (the standalone
   * Master dropped its Worker), "Executor heartbeat timed out after N ms" (the driver's own heartbeat receiver).
   */
  private static final Pattern EXECUTOR_LOST = Pattern.compile("Lost executor \\S+ on \\S+: (.*)");
  /** The Master's line when it drops a Worker that sent no heartbeat for spark.worker.timeout. */
  private static final Pattern WORKER_REMOVED = Pattern.compile("Removing worker-\\S+ because we got no heartbeat");
  /** A host counts as having got work again when it sends at least this share of its bytes per round before. */
  static final double WORK_AGAIN_SHARE = 0.5;

  private PartitionTable() {}

  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("bitopk: usage: PartitionTable EXPERIMENT_DIR");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    try {
      List<Row> rows = rows(dir);
      if (rows.isEmpty()) {
        System.err.println("bitopk: " + dir + " holds no finished lab run (a directory with netlab.json and run/)");
        System.exit(1);
      }
      String table = markdown(rows);
      Files.writeString(dir.resolve("partitions.txt"), table);
      JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("partitions.json").toFile(), json(rows));
      System.out.print(table);
    } catch (IOException | UncheckedIOException e) {
      System.err.println("bitopk: partition table of " + dir + ": " + e.getMessage());
      System.exit(1);
    } catch (RuntimeException e) {
      System.err.println("bitopk: partition table of " + dir + ": " + e.getMessage());
      System.exit(1);
    }
  }

  /**
   * One run of the experiment. Times are seconds since the link went down; absent ones are NaN. For the undisturbed
   * run {@code partitionSeconds} is 0 and the waited round is its slowest after the first.
   */
  record Row(String name, int partitionSeconds, int host, long waitedRound, double waitedSeconds,
      double medianRoundSeconds, double roundEndedAfter, double declaredLostAfter, String declaredBy,
      double workerRemovedAfter, int lostResiduals, int resyncs, double accuracy, String model, long rounds,
      long roundsAfterRejoin, double sentPerRoundBefore, double sentPerRoundAfter) {

    boolean disturbed() {
      return partitionSeconds > 0;
    }

    /** Whether the rejoined host sent at least {@link #WORK_AGAIN_SHARE} of its bytes per round before the cut. */
    boolean workedAgain() {
      return roundsAfterRejoin > 0 && sentPerRoundAfter >= WORK_AGAIN_SHARE * sentPerRoundBefore;
    }

    /**
     * Whether the counters tell if the rejoined host got work: rounds ran after the link came back, and the counter
     * samples span completed rounds both before the cut and after the link came back (a run with a round or two
     * left between two samples has no bytes per round to compare).
     */
    boolean rejoinMeasured() {
      return roundsAfterRejoin > 0 && !Double.isNaN(sentPerRoundAfter) && !Double.isNaN(sentPerRoundBefore);
    }
  }

  static List<Row> rows(Path dir) throws IOException {
    List<Row> rows = new ArrayList<>();
    try (Stream<Path> labs = Files.list(dir)) {
      for (Path lab : labs.filter(p -> Files.exists(p.resolve("netlab.json"))
          && Files.exists(p.resolve("run/metrics/iterations.jsonl"))).sorted().toList()) {
        rows.add(row(lab));
      }
    }
    rows.sort(Comparator.comparingInt(Row::partitionSeconds));
    return rows;
  }

  /** The row of one lab directory. */
  static Row row(Path lab) throws IOException {
    JsonNode summary = JSON.readTree(lab.resolve("netlab.json").toFile());
    double started = JSON.readTree(lab.resolve("counters/before.json").toFile()).path("t").asDouble();
    List<JsonNode> rounds = jsonLines(lab.resolve("run/metrics/iterations.jsonl"));
    List<JsonNode> epochs = jsonLines(lab.resolve("run/metrics/epochs.jsonl"));
    double accuracy = epochs.isEmpty() ? Double.NaN : epochs.get(epochs.size() - 1).path("test_accuracy").asDouble();
    String model = modelDigest(lab.resolve("run/model.zip"));
    int lost = rounds.stream().mapToInt(r -> r.path("lost_residuals").asInt()).sum();
    int resyncs = rounds.stream().mapToInt(r -> r.path("replica_resyncs").asInt()).sum();
    double[] sorted = rounds.stream().mapToDouble(r -> r.path("time_total_ms").asDouble() / 1e3).sorted().toArray();
    double median = sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    Timeline timeline = Timeline.of(summary.path("timeline"));

    OptionalDouble down = faultTime(summary, "link down");
    OptionalDouble up = faultTime(summary, "link up");
    if (down.isEmpty()) {
      long slowest = 1;
      for (int t = 1; t < rounds.size(); t++) {
        if (seconds(rounds.get(t)) > seconds(rounds.get((int) slowest))) {
          slowest = t;
        }
      }
      return new Row(lab.getFileName().toString(), 0, -1, slowest,
          rounds.size() > 1 ? seconds(rounds.get((int) slowest)) : Double.NaN, median, Double.NaN, Double.NaN, "",
          Double.NaN, lost, resyncs, accuracy, model, rounds.size(), 0, Double.NaN, Double.NaN);
    }
    int host = faultHost(summary);
    double downAt = down.getAsDouble();
    double upAt = up.orElse(Double.NaN);
    // the round in flight when the link went down, or the slowest one after it
    long first = timeline.roundsAt(downAt);
    long waited = first;
    for (long t = first; t < rounds.size(); t++) {
      if (seconds(rounds.get((int) t)) > seconds(rounds.get((int) waited))) {
        waited = t;
      }
    }
    double roundEnded = timeline.firstTimeWith(waited + 1).orElse(Double.NaN) - downAt;

    String address = hostAddress(lab, host);
    Optional<LogEvent> lostEvent = firstAfter(driverLogs(lab), EXECUTOR_LOST, address, started + downAt);
    Optional<LogEvent> removed = firstAfter(List.of(lab.resolve("logs/master.log")), WORKER_REMOVED, address,
        started + downAt);
    double declared = lostEvent.map(e -> e.epochSeconds() - started - downAt).orElse(Double.NaN);
    String by = lostEvent.map(e -> e.detail().isEmpty() ? e.line() : e.detail()).orElse("");

    long roundsAtRejoin = Double.isNaN(upAt) ? rounds.size() : timeline.roundsAt(upAt);
    long after = Math.max(0, rounds.size() - roundsAtRejoin);
    double before = timeline.sentPerRound(host, 0, downAt);
    double afterRate = Double.isNaN(upAt) ? Double.NaN : timeline.sentPerRound(host, upAt, Double.MAX_VALUE);
    return new Row(lab.getFileName().toString(), partitionSeconds(lab, downAt, upAt), host, waited,
        seconds(rounds.get((int) waited)), median, roundEnded, declared, by,
        removed.map(e -> e.epochSeconds() - started - downAt).orElse(Double.NaN), lost, resyncs, accuracy, model,
        rounds.size(), after, before, afterRate);
  }

  /** netlab-partitions.sh's name of a lab directory: down-SECONDS. */
  private static final Pattern LAB_NAME = Pattern.compile("down-(\\d+)");

  /**
   * The partition's length: from the link going down to coming back, or, when the run ended before the link came
   * back (netlab.json then has no "link up"), the length the lab directory's name gives.
   */
  static int partitionSeconds(Path lab, double downAt, double upAt) {
    if (!Double.isNaN(upAt)) {
      return (int) Math.round(upAt - downAt);
    }
    Matcher name = LAB_NAME.matcher(lab.getFileName().toString());
    if (!name.matches()) {
      throw new IllegalStateException(lab + ": the link never came back during the run, and the directory's name "
          + "is not down-SECONDS, which would give the partition's length");
    }
    return Integer.parseInt(name.group(1));
  }

  /**
   * SHA-256 over every entry of the model file, in order, without the archive's timestamps: equal digests are the
   * same model bit for bit. Empty when the run wrote no model.
   */
  static String modelDigest(Path zip) throws IOException {
    if (!Files.exists(zip)) {
      return "";
    }
    try (InputStream in = Files.newInputStream(zip); ZipInputStream entries = new ZipInputStream(in)) {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (ZipEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
        sha.update(entry.getName().getBytes(StandardCharsets.UTF_8));
        sha.update(entries.readAllBytes());
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static double seconds(JsonNode round) {
    return round.path("time_total_ms").asDouble() / 1e3;
  }

  private static OptionalDouble faultTime(JsonNode summary, String event) {
    for (JsonNode f : summary.path("faults")) {
      if (f.path("event").asText().equals(event)) {
        return OptionalDouble.of(f.path("seconds").asDouble());
      }
    }
    return OptionalDouble.empty();
  }

  private static int faultHost(JsonNode summary) {
    for (JsonNode f : summary.path("faults")) {
      if (f.path("event").asText().equals("link down")) {
        return f.path("host").asInt();
      }
    }
    throw new IllegalStateException("no link-down fault");
  }

  private static String hostAddress(Path lab, int host) throws IOException {
    for (String line : Files.readAllLines(lab.resolve("hosts.tsv"))) {
      String[] f = line.split("\t");
      if (f.length > 3 && f[0].equals(Integer.toString(host))) {
        return f[3];
      }
    }
    throw new IllegalArgumentException(lab.resolve("hosts.tsv") + " lists no host " + host);
  }

  /** The driver's log: the run's own (Spark's messages go there) and the lab's console log of the driver. */
  private static List<Path> driverLogs(Path lab) throws IOException {
    List<Path> logs = new ArrayList<>();
    Path runLogs = lab.resolve("run/logs");
    if (Files.isDirectory(runLogs)) {
      try (Stream<Path> files = Files.list(runLogs)) {
        files.filter(p -> p.getFileName().toString().startsWith("driver-")).sorted().forEach(logs::add);
      }
    }
    logs.add(lab.resolve("logs/driver.log"));
    return logs;
  }

  private static List<JsonNode> jsonLines(Path file) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    if (Files.exists(file)) {
      for (String line : Files.readAllLines(file)) {
        if (!line.isBlank()) {
          lines.add(JSON.readTree(line));
        }
      }
    }
    return lines;
  }

  /** A log line matched by one of the patterns, at its time (epoch seconds); detail is the reason it gives. */
  record LogEvent(double epochSeconds, String line, String detail) {}

  /**
   * The first line matching {@code pattern} (and naming {@code address} when one is given) logged at or
   * after {@code fromEpoch}. A log time has no zone or date: it is read in this machine's zone, on the day that
   * puts it closest to {@code fromEpoch}, as the lab's processes ran here.
   */
  static Optional<LogEvent> firstAfter(List<Path> logs, Pattern pattern, String address, double fromEpoch)
      throws IOException {
    Pattern host = address == null ? null : Pattern.compile(Pattern.quote(address) + "(?!\\d)");
    LogEvent first = null;
    for (Path log : logs) {
      if (!Files.exists(log)) {
        continue;
      }
      for (String line : Files.readAllLines(log)) {
        Matcher time = LOG_TIME.matcher(line);
        Matcher m = pattern.matcher(line);
        if (!time.find() || !m.find()) {
          continue;
        }
        if (host != null && !host.matcher(line).find()) {
          continue;
        }
        double at = epochSeconds(time.group(1), time.group(2), fromEpoch);
        if (at + 0.001 >= fromEpoch && (first == null || at < first.epochSeconds())) {
          String detail = "";
          for (int g = m.groupCount(); g >= 1; g--) {
            if (m.group(g) != null) {
              detail = m.group(g);
              break;
            }
          }
          first = new LogEvent(at, line.substring(time.end()), detail);
        }
      }
    }
    return Optional.ofNullable(first);
  }

  static double epochSeconds(String date, String time, double near) {
    ZoneId zone = ZoneId.systemDefault();
    LocalTime clock = LocalTime.parse(time.length() == 8 ? time + ".000" : time,
        DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT));
    LocalDate day = date != null ? LocalDate.parse("20" + date, DateTimeFormatter.ofPattern("yyyy/MM/dd"))
        : LocalDateTime.ofInstant(Instant.ofEpochMilli((long) (near * 1000)), zone).toLocalDate();
    double best = Double.NaN;
    for (int shift = date != null ? 0 : -1; shift <= (date != null ? 0 : 1); shift++) {
      Instant at = day.plusDays(shift).atTime(clock).atZone(zone).toInstant();
      double s = at.getEpochSecond() + at.getNano() / 1e9;
      if (Double.isNaN(best) || Math.abs(s - near) < Math.abs(best - near)) {
        best = s;
      }
    }
    return best;
  }

  /** netlab.json's timeline: sample times (seconds since the job started), rounds done, bytes each host sent. */
  record Timeline(double[] seconds, long[] rounds, long[][] sent) {
    static Timeline of(JsonNode node) {
      int n = node.path("seconds").size();
      double[] seconds = new double[n];
      long[] rounds = new long[n];
      for (int i = 0; i < n; i++) {
        seconds[i] = node.path("seconds").get(i).asDouble();
        rounds[i] = node.path("rounds").get(i).asLong();
      }
      JsonNode hosts = node.path("hosts");
      long[][] sent = new long[hosts.size()][n];
      for (JsonNode h : hosts) {
        for (int i = 0; i < n; i++) {
          sent[h.path("host").asInt()][i] = h.path("sent_bytes").get(i).asLong();
        }
      }
      return new Timeline(seconds, rounds, sent);
    }

    /** Rounds completed by the last sample at or before {@code time}. */
    long roundsAt(double time) {
      long done = 0;
      for (int i = 0; i < seconds.length && seconds[i] <= time; i++) {
        done = Math.max(done, rounds[i]);
      }
      return done;
    }

    /** The first sample time at which at least {@code done} rounds were completed. */
    OptionalDouble firstTimeWith(long done) {
      for (int i = 0; i < seconds.length; i++) {
        if (rounds[i] >= done) {
          return OptionalDouble.of(seconds[i]);
        }
      }
      return OptionalDouble.empty();
    }

    /**
     * Bytes host {@code host} sent per round completed between the samples in [from, to], counting only the samples
     * after the first round (start-up left out); NaN when no round completed there.
     */
    double sentPerRound(int host, double from, double to) {
      int a = -1;
      int b = -1;
      for (int i = 0; i < seconds.length; i++) {
        if (seconds[i] >= from && seconds[i] <= to && rounds[i] >= 1) {
          if (a < 0) {
            a = i;
          }
          b = i;
        }
      }
      if (a < 0 || rounds[b] <= rounds[a]) {
        return Double.NaN;
      }
      return (double) (sent[host][b] - sent[host][a]) / (rounds[b] - rounds[a]);
    }
  }

  static String markdown(List<Row> rows) {
    Row undisturbed = rows.stream().filter(r -> !r.disturbed()).findFirst().orElse(null);
    StringBuilder out = new StringBuilder();
    out.append("| partition | round that waited | executor declared lost (by) | round ended | lost residuals "
        + "| resyncs | final accuracy | final model | rounds after rejoin | rejoined host got work |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      if (!r.disturbed()) {
        out.append(String.format(Locale.ROOT, "| none | slowest after the first: %d, %.1f s (median %.2f s) | — | — "
            + "| %d | %d | %.2f%% | — | — | — |%n", r.waitedRound(), r.waitedSeconds(), r.medianRoundSeconds(),
            r.lostResiduals(), r.resyncs(), 100 * r.accuracy()));
        continue;
      }
      String declared = Double.isNaN(r.declaredLostAfter()) ? "never"
          : String.format(Locale.ROOT, "at %.1f s (%s%s)", r.declaredLostAfter(), r.declaredBy(),
              Double.isNaN(r.workerRemovedAfter()) ? ""
                  : String.format(Locale.ROOT, "; Master removed the Worker at %.1f s", r.workerRemovedAfter()));
      String accuracy = String.format(Locale.ROOT, "%.2f%%", 100 * r.accuracy());
      if (undisturbed != null) {
        accuracy += String.format(Locale.ROOT, " (%+.2f)", 100 * (r.accuracy() - undisturbed.accuracy()));
      }
      String work = r.roundsAfterRejoin() == 0 ? "— (no round after the link came back)"
          : !r.rejoinMeasured() ? "— (too few rounds between the counter samples to tell)"
          : String.format(Locale.ROOT, "%s (%.0f KB/round, %.0f before)", r.workedAgain() ? "yes" : "no",
              r.sentPerRoundAfter() / 1e3, r.sentPerRoundBefore() / 1e3);
      String model = undisturbed == null || r.model().isEmpty() || undisturbed.model().isEmpty() ? "—"
          : r.model().equals(undisturbed.model()) ? "the undisturbed run's, bit for bit" : "differs";
      out.append(String.format(Locale.ROOT, "| %d s | %d: %.1f s | %s | at %.1f s | %d | %d | %s | %s | %d | %s |%n",
          r.partitionSeconds(), r.waitedRound(), r.waitedSeconds(), declared, r.roundEndedAfter(), r.lostResiduals(),
          r.resyncs(), accuracy, model, r.roundsAfterRejoin(), work));
    }
    out.append("\nTimes after the link went down; a round's end is read from the lab's counter samples (every 0.5 s). "
        + "A rejoined host got work when it sent at least half its bytes per round before the cut.\n");
    return out.toString();
  }

  static ArrayNode json(List<Row> rows) {
    ArrayNode array = JSON.createArrayNode();
    for (Row r : rows) {
      ObjectNode n = array.addObject();
      n.put("name", r.name());
      n.put("partition_seconds", r.partitionSeconds());
      n.put("host", r.host());
      n.put("waited_round", r.waitedRound());
      number(n, "waited_seconds", r.waitedSeconds());
      number(n, "median_round_seconds", r.medianRoundSeconds());
      number(n, "round_ended_after_seconds", r.roundEndedAfter());
      number(n, "executor_declared_lost_after_seconds", r.declaredLostAfter());
      n.put("executor_declared_lost_by", r.declaredBy());
      number(n, "master_removed_worker_after_seconds", r.workerRemovedAfter());
      n.put("lost_residuals", r.lostResiduals());
      n.put("replica_resyncs", r.resyncs());
      number(n, "final_accuracy", r.accuracy());
      n.put("model_sha256", r.model());
      n.put("rounds", r.rounds());
      n.put("rounds_after_rejoin", r.roundsAfterRejoin());
      number(n, "host_sent_bytes_per_round_before", r.sentPerRoundBefore());
      number(n, "host_sent_bytes_per_round_after_rejoin", r.sentPerRoundAfter());
      if (r.disturbed() && r.rejoinMeasured()) {
        n.put("host_got_work_again", r.workedAgain());
      } else {
        n.putNull("host_got_work_again");   // undisturbed, or the counters cannot tell
      }
    }
    return array;
  }

  /** Puts {@code value} under {@code key}; NaN, where there is no figure, is written as JSON's null (no NaN in JSON). */
  private static void number(ObjectNode node, String key, double value) {
    if (Double.isNaN(value)) {
      node.putNull(key);
    } else {
      node.put(key, value);
    }
  }
}
