package org.bitopk.lab.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bitopk.job.SparkJvmOpens;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network lab in miniature: {@code submit/netlab.sh} with 2 worker hosts at 100 Mbit/s trains the MLP for
 * a few rounds. The shaping holds (a timed 12 MB transfer within 15% of the rate), the wire carries at least
 * what the job counts per round and at most {@link #SPARK_BYTES_PER_HOST_AND_ROUND} more per worker host (Spark's
 * own traffic: task launches, results, broadcast fetches, heartbeats), the driver's link carries
 * no training data (less than one worker's shard of Fashion-MNIST at a byte per pixel), and nothing named after
 * the invocation is left: no namespace, no link, no process. Needs root (network namespaces); skipped with the
 * reason where that is missing.
 */
class NetworkLabTest {
  private static final Path ROOT = SparkJvmOpens.projectRoot();
  /**
   * Bound on Spark's own bytes per worker host and round, about 1.5 times what was measured: 25.6 KB (20 rounds of
   * the MLP at ρ = 0.01 on 2 hosts: 100 KB on the wire per round against the job's 49 KB), of which 14 KB are
   * Spark's per task (the task's launch, its status updates). With the Hadoop configuration in the shards'
   * lineage, every round's tasks carried it: 180 KB per host, which this bound catches (the 30 KB measured before
   * the newest update travelled inside the task binary are within it).
   */
  static final double SPARK_BYTES_PER_HOST_AND_ROUND = 40_000;
  private static final int WORKERS = 2;
  private static final long SHARD_BYTES = 60_000L * 28 * 28 / WORKERS;

  @TempDir
  Path tmp;

  @Test
  void shapedLinksCarryTheJobsBytesAndNothingIsLeft() throws IOException, InterruptedException {
    String missing = missingPrivileges();
    Assumptions.assumeTrue(missing.isEmpty(), missing);

    Path lab = Path.of(System.getProperty("bitopk.netlab.dir", tmp.resolve("lab").toString()));
    Path run = tmp.resolve("run");
    Path log = tmp.resolve("netlab.log");
    ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("submit/netlab.sh").toString(), "--hosts", "2",
        "--rate", "100mbit", "--probe", "12", "--time-limit", "400", "--lab-dir", lab.toString(), "--",
        "train", "--workers", Integer.toString(WORKERS), "--mode", "bidirectional", "--density-up", "0.01",
        "--density-down", "0.01", "--max-iterations", "20", "--batch-size", "32", "--quiet",
        "--output", run.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("BITOPK_CLASSPATH", System.getProperty("java.class.path"));
    Process netlab = builder.start();
    String prefix = "bk" + netlab.pid() + "-";
    if (!netlab.waitFor(420, TimeUnit.SECONDS)) {
      netlab.destroy();   // SIGTERM: the lab tears itself down
      netlab.waitFor(60, TimeUnit.SECONDS);
      throw new AssertionError("netlab.sh still running after 420 s; log:\n" + Files.readString(log));
    }
    String output = Files.readString(log);
    assertEquals(0, netlab.exitValue(), output);

    JsonNode summary = new ObjectMapper().readTree(lab.resolve("netlab.json").toFile());
    double rate = summary.path("probe").path("mbit_per_second").asDouble();
    assertTrue(rate >= 85 && rate <= 115, "timed transfer at " + rate + " Mbit/s on 100 Mbit/s links");

    JsonNode rounds = summary.path("rounds");
    assertTrue(rounds.path("to_round").asLong() - rounds.path("from_round").asLong() >= 5,
        "fewer than 5 rounds between the counter readings: " + rounds);
    double wire = rounds.path("wire_bytes_per_round").asDouble();
    double job = rounds.path("job_bytes_per_round").asDouble();
    assertTrue(job > 0, "the job counted no bytes: " + rounds);
    assertTrue(wire >= job, "the wire carried " + wire + " bytes per round, less than the job's " + job);
    assertTrue(wire <= job + SPARK_BYTES_PER_HOST_AND_ROUND * WORKERS, "the wire carried " + wire
        + " bytes per round, more than the job's " + job + " + " + SPARK_BYTES_PER_HOST_AND_ROUND + " per host");

    JsonNode cluster = summary.path("cluster");
    assertTrue(cluster.path("wire_bytes").asLong() >= cluster.path("job_bytes").asLong(),
        "over the whole run, start-up included, the wire carried less than the job counted: " + cluster);

    JsonNode driver = summary.path("hosts").get(0);
    assertEquals("driver", driver.path("role").asText());
    assertTrue(driver.path("sent_bytes").asLong() < SHARD_BYTES, "the driver sent " + driver.path("sent_bytes")
        + " bytes, as much as a worker's shard (" + SHARD_BYTES + ")");

    assertEquals(List.of(), leftovers(prefix), "left behind by " + prefix + "*");
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
