package org.bitopk.job.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/** What a lease file ({@link RunLease}) says about its holder. */
public record LeaseHolder(String run, String host, long pid, String processStarted, Instant started,
    Instant refreshed, String token) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** "run X (host h, pid 12, started 2024-…, refreshed 3 s ago)". */
  public String describe(Instant now) {
    long ago = Math.max(0, Duration.between(refreshed, now).toSeconds());
    return "run " + run + " (host " + host + ", pid " + pid + ", started " + started + ", refreshed " + ago
        + " s ago)";
  }

  byte[] toJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("run", run);
    node.put("host", host);
    node.put("pid", pid);
    node.put("process_started", processStarted);
    node.put("started", started.toString());
    node.put("refreshed", refreshed.toString());
    node.put("token", token);
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the lease", e);
    }
  }

  static LeaseHolder fromJson(byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      if (node == null || !node.isObject() || !node.hasNonNull("token") || !node.hasNonNull("refreshed")) {
        return null;
      }
      return new LeaseHolder(node.path("run").asText(), node.path("host").asText(), node.path("pid").asLong(),
          node.path("process_started").asText(""), Instant.parse(node.path("started").asText()),
          Instant.parse(node.path("refreshed").asText()), node.path("token").asText());
    } catch (IOException | RuntimeException unreadable) {
      return null;
    }
  }
}
