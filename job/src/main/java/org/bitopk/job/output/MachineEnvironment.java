package org.bitopk.job.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The machine a measurement was taken on and how busy it was: cores, CPU model, memory, Java, the process (its
 * pid: a measurement that starts JVMs of its own tells them apart by it), and the load averages when the
 * measurement started and ended. A wall time means little without them (the same run takes
 * twice as long beside a build), so every command that measures — the experiment runner, the compressor
 * evaluation, the time-to-accuracy comparison — appends one entry per invocation to {@code environment.json} in
 * its output directory, and REPRODUCTION.md quotes it.
 *
 * <p>The file holds a JSON array; a resumed experiment appends its own entry, so a result assembled over several
 * invocations shows each one's load.
 */
public final class MachineEnvironment {
  /** File name in the output directory. */
  public static final String FILE = "environment.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ObjectNode entry;

  private MachineEnvironment(ObjectNode entry) {
    this.entry = entry;
  }

  /** Describes this machine now, at the start of {@code command}. */
  public static MachineEnvironment start(String command) {
    ObjectNode e = JSON.createObjectNode();
    e.put("command", command);
    e.put("host", hostName());
    e.put("pid", ProcessHandle.current().pid());
    e.put("cores", Runtime.getRuntime().availableProcessors());
    e.put("cpu", cpuModel());
    e.put("memory_gib", Math.round(totalMemoryBytes() / (1024.0 * 1024 * 1024) * 10) / 10.0);
    e.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    e.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    e.put("started", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    e.set("load_at_start", loadAverages());
    return new MachineEnvironment(e);
  }

  /**
   * Records the end time and the load then, and appends this entry to {@code dir/environment.json}
   * (atomically: the file is whole or absent).
   */
  public void finishInto(FileSystem fs, Path dir) throws IOException {
    entry.put("finished", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    entry.set("load_at_end", loadAverages());
    Path file = new Path(dir, FILE);
    ArrayNode all = JSON.createArrayNode();
    for (JsonNode old : readAll(fs, dir)) {
      all.add(old);
    }
    all.add(entry);
    AtomicFiles.write(fs, file, out -> out.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(all)));
  }

  /** The entries of {@code dir/environment.json}, oldest first; empty when there is no such file. */
  public static List<JsonNode> readAll(FileSystem fs, Path dir) throws IOException {
    Path file = new Path(dir, FILE);
    if (!fs.exists(file)) {
      return List.of();
    }
    try (InputStream in = fs.open(file)) {
      JsonNode root = JSON.readTree(in);
      if (root == null || !root.isArray()) {
        throw new IOException(fs.makeQualified(file) + ": expected a JSON array of environment entries");
      }
      java.util.ArrayList<JsonNode> list = new java.util.ArrayList<>();
      root.forEach(list::add);
      return list;
    }
  }

  /** This entry as JSON (for tests and for commands that print it). */
  public ObjectNode json() {
    return entry.deepCopy();
  }

  /** The 1, 5 and 15 minute load averages from /proc/loadavg, or the JVM's 1-minute figure elsewhere. */
  static ArrayNode loadAverages() {
    ArrayNode a = JSON.createArrayNode();
    try {
      String[] f = Files.readString(java.nio.file.Path.of("/proc/loadavg"), StandardCharsets.US_ASCII)
          .trim().split("\\s+");
      for (int i = 0; i < 3; i++) {
        a.add(Double.parseDouble(f[i]));
      }
    } catch (IOException | RuntimeException e) {
      a.add(java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
    return a;
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the architecture below is all we can say
    }
    return System.getProperty("os.arch");
  }

  private static long totalMemoryBytes() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getTotalMemorySize();
    }
    return Runtime.getRuntime().maxMemory();
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
