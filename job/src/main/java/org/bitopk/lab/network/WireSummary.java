package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The network lab's {@code netlab.json}: for every host the bytes its link really carried while the job ran
 * (read from the bridge's port counters before and after), the job's own figure for that host, and the
 * difference, which is Spark's own traffic (task descriptions, result framing, heartbeats, block manager);
 * the same for the whole cluster and per round, over the whole run and over the rounds alone (start-up and
 * shut-down left out, from the readings taken while the job ran); the counters'
 * timeline; the probe transfer's rate when one was run.
 *
 * <p>The job counts per worker replica; the wire carries one broadcast per executor. With one worker per host
 * the two agree; with more workers than hosts the job's downlink figure exceeds what any wire can carry, and
 * the summary says so ({@code downlink_counted_per_replica}). Per worker host, the job's figures are the
 * totals divided evenly over the worker hosts.
 *
 * <p>Usage: {@code WireSummary LAB_DIR COMMAND OUTPUT SUMMARY_FILE EXIT_CODE}, run by {@code submit/netlab.sh}.
 */
public final class WireSummary {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WireSummary() {}

  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("bitopk: usage: WireSummary LAB_DIR COMMAND OUTPUT SUMMARY_FILE EXIT_CODE");
      System.exit(2);
    }
    try {
      Path lab = Path.of(args[0]);
      JobAccounting job = args[2].equals("none") ? JobAccounting.NONE
          : JobAccounting.under(Path.of(args[2].replaceFirst("^file://", "")));
      ObjectNode summary = summarize(lab, args[1], args[2], Integer.parseInt(args[4]), job);
      JSON.writerWithDefaultPrettyPrinter().writeValue(Path.of(args[3]).toFile(), summary);
      printLine(summary, args[3], System.out);
    } catch (IOException e) {
      System.err.println("bitopk: cannot write " + args[3] + ": " + e.getMessage());
      System.exit(1);
    } catch (RuntimeException e) {
      System.err.println("bitopk: wire summary of " + args[0] + ": " + e.getMessage());
      System.exit(1);
    }
  }

  /** One host of the lab as netlab.sh describes it in hosts.tsv. */
  record Host(int index, String role, String namespace, String address, String port, String rate, String delay,
      String loss) {
    static Host parse(String line) {
      String[] f = line.split("\t");
      if (f.length != 8) {
        throw new IllegalArgumentException("hosts.tsv: expected 8 tab-separated fields, got: " + line);
      }
      return new Host(Integer.parseInt(f[0]), f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    }

    boolean isDriver() {
      return role.equals("driver");
    }
  }

  static ObjectNode summarize(Path lab, String command, String output, int exitCode, JobAccounting job)
      throws IOException {
    List<Host> hosts = Files.readAllLines(lab.resolve("hosts.tsv")).stream().filter(l -> !l.isBlank())
        .map(Host::parse).toList();
    LinkCounters before = read(lab.resolve("counters/before.json"));
    LinkCounters after = read(lab.resolve("counters/after.json"));
    long workerHosts = hosts.stream().filter(h -> !h.isDriver()).count();
    double seconds = after.time() - before.time();

    ObjectNode root = JSON.createObjectNode();
    root.put("command", command);
    root.put("output", output);
    root.put("exit_code", exitCode);
    root.put("seconds", seconds);
    root.put("note", "measured = bytes on each host's link (bridge port counters, Ethernet frames); job = the "
        + "job's own accounting; difference = Spark's own traffic");

    ArrayNode hostNodes = root.putArray("hosts");
    long wire = 0;
    for (Host h : hosts) {
      LinkCounters.Counts c = after.port(h.port()).minus(before.port(h.port()));
      long jobSent = h.isDriver() ? job.downBytesDelivered() : job.upBytes() / workerHosts;
      long jobReceived = h.isDriver() ? job.upBytes() : job.downBytesDelivered() / workerHosts;
      ObjectNode n = hostNodes.addObject();
      n.put("host", h.index());
      n.put("role", h.role());
      n.put("address", h.address());
      n.put("rate", h.rate());
      n.put("delay", h.delay());
      n.put("loss_percent", Double.parseDouble(h.loss()));
      n.put("sent_bytes", c.receivedBytes());
      n.put("received_bytes", c.transmittedBytes());
      n.put("sent_packets", c.receivedPackets());
      n.put("received_packets", c.transmittedPackets());
      n.put("job_sent_bytes", jobSent);
      n.put("job_received_bytes", jobReceived);
      n.put("difference_sent_bytes", c.receivedBytes() - jobSent);
      n.put("difference_received_bytes", c.transmittedBytes() - jobReceived);
      wire += c.receivedBytes();
    }

    ObjectNode jobNode = root.putObject("job");
    jobNode.put("runs", job.runs());
    jobNode.put("rounds", job.rounds());
    jobNode.put("up_bytes", job.upBytes());
    jobNode.put("down_bytes", job.downBytes());
    jobNode.put("down_bytes_delivered", job.downBytesDelivered());
    jobNode.put("workers", job.workers());
    jobNode.put("downlink_counted_per_replica", job.workers() > workerHosts);

    ObjectNode total = root.putObject("cluster");
    total.put("wire_bytes", wire);
    total.put("job_bytes", job.totalBytes());
    total.put("difference_bytes", wire - job.totalBytes());
    total.put("wire_over_job", job.totalBytes() > 0 ? (double) wire / job.totalBytes() : Double.NaN);
    if (job.rounds() > 0) {
      total.put("wire_bytes_per_round", (double) wire / job.rounds());
      total.put("job_bytes_per_round", (double) job.totalBytes() / job.rounds());
    }

    Path samples = lab.resolve("counters/samples.jsonl");
    if (Files.exists(samples)) {
      List<LinkCounters> readings = readings(samples);
      Path iterations = Path.of(output.replaceFirst("^file://", ""), "metrics", "iterations.jsonl");
      if (Files.exists(iterations)) {
        roundWindow(readings, hosts, iterations).ifPresent(w -> root.set("rounds", w));
      }
      root.set("timeline", timeline(readings, before, hosts));
    }
    Path faults = lab.resolve("counters/faults.tsv");
    if (Files.exists(faults)) {
      ArrayNode events = root.putArray("faults");
      for (String line : Files.readAllLines(faults)) {
        String[] f = line.split("\t", 3);
        ObjectNode e = events.addObject();
        e.put("seconds", Math.round((Double.parseDouble(f[0]) - before.time()) * 1000) / 1000.0);
        e.put("host", Integer.parseInt(f[1]));
        e.put("event", f[2]);
      }
    }
    Path probe = lab.resolve("counters/probe.json");
    if (Files.exists(probe)) {
      root.set("probe", JSON.readTree(probe.toFile()));
    }
    return root;
  }

  /**
   * The rounds between the first reading that saw a round completed and the first that saw the last one: the
   * bytes each host's link carried per round there against the job's accounting of the same rounds, start-up
   * and shut-down left out. Empty when fewer than one round lies between two readings.
   */
  static Optional<ObjectNode> roundWindow(List<LinkCounters> readings, List<Host> hosts, Path iterations) {
    long last = readings.stream().mapToLong(LinkCounters::rounds).max().orElse(-1);
    Optional<LinkCounters> start = readings.stream().filter(r -> r.rounds() >= 1).findFirst();
    Optional<LinkCounters> end = readings.stream().filter(r -> r.rounds() == last).findFirst();
    if (start.isEmpty() || end.isEmpty() || end.get().rounds() <= start.get().rounds()) {
      return Optional.empty();
    }
    LinkCounters a = start.get();
    LinkCounters b = end.get();
    long rounds = b.rounds() - a.rounds();
    JobAccounting job = JobAccounting.between(iterations, a.rounds(), b.rounds());
    ObjectNode node = JSON.createObjectNode();
    node.put("from_round", a.rounds());
    node.put("to_round", b.rounds());
    node.put("seconds", b.time() - a.time());
    long wire = 0;
    ArrayNode perHost = node.putArray("hosts");
    for (Host h : hosts) {
      LinkCounters.Counts c = b.port(h.port()).minus(a.port(h.port()));
      wire += c.receivedBytes();
      ObjectNode n = perHost.addObject();
      n.put("host", h.index());
      n.put("sent_bytes_per_round", (double) c.receivedBytes() / rounds);
      n.put("received_bytes_per_round", (double) c.transmittedBytes() / rounds);
    }
    node.put("wire_bytes_per_round", (double) wire / rounds);
    node.put("job_bytes_per_round", (double) job.totalBytes() / rounds);
    node.put("job_up_bytes_per_round", (double) job.upBytes() / rounds);
    node.put("job_down_bytes_delivered_per_round", (double) job.downBytesDelivered() / rounds);
    node.put("difference_bytes_per_round", (double) (wire - job.totalBytes()) / rounds);
    node.put("wire_over_job", job.totalBytes() > 0 ? (double) wire / job.totalBytes() : Double.NaN);
    return Optional.of(node);
  }

  private static List<LinkCounters> readings(Path samples) throws IOException {
    List<LinkCounters> readings = new ArrayList<>();
    int lineNumber = 0;
    for (String line : Files.readAllLines(samples)) {
      lineNumber++;
      if (!line.isBlank()) {
        try {
          readings.add(LinkCounters.parse(line, samples + " line " + lineNumber));
        } catch (RuntimeException torn) {
          // the sampler was stopped in the middle of its last line
        }
      }
    }
    return readings;
  }

  /** Seconds since the job started and, per host, bytes sent and received since then, at every sample. */
  private static ObjectNode timeline(List<LinkCounters> readings, LinkCounters before, List<Host> hosts) {
    ObjectNode node = JSON.createObjectNode();
    ArrayNode times = node.putArray("seconds");
    readings.forEach(r -> times.add(Math.round((r.time() - before.time()) * 1000) / 1000.0));
    ArrayNode rounds = node.putArray("rounds");
    readings.forEach(r -> rounds.add(r.rounds()));
    ArrayNode perHost = node.putArray("hosts");
    for (Host h : hosts) {
      ObjectNode n = perHost.addObject();
      n.put("host", h.index());
      ArrayNode sent = n.putArray("sent_bytes");
      ArrayNode received = n.putArray("received_bytes");
      for (LinkCounters r : readings) {
        LinkCounters.Counts c = r.port(h.port()).minus(before.port(h.port()));
        sent.add(c.receivedBytes());
        received.add(c.transmittedBytes());
      }
    }
    return node;
  }

  private static LinkCounters read(Path file) throws IOException {
    return LinkCounters.parse(Files.readString(file), file.toString());
  }

  private static void printLine(ObjectNode summary, String file, PrintStream out) {
    JsonNode c = summary.path("cluster");
    JsonNode window = summary.path("rounds");
    if (window.has("wire_bytes_per_round")) {
      c = window;
    }
    String perRound = c.has("wire_bytes_per_round")
        ? String.format(Locale.ROOT, "; per round %.1f KB on the wire, %.1f KB counted by the job",
            c.path("wire_bytes_per_round").asDouble() / 1e3, c.path("job_bytes_per_round").asDouble() / 1e3)
        : "";
    JsonNode total = summary.path("cluster");
    out.printf(Locale.ROOT, "netlab: %.2f MB on the wire, %.2f MB counted by the job (%.2fx)%s; %s%n",
        total.path("wire_bytes").asDouble() / 1e6, total.path("job_bytes").asDouble() / 1e6,
        total.path("wire_over_job").asDouble(), perRound, file);
  }
}
