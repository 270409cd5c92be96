package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reading of the bridge's ports ({@code {"t": seconds, "rounds": N, "links": <ip -s -j link show>}}): port
 * i is the far end of host i's link, so what the port received is what host i sent, and what it transmitted is
 * what host i received. {@code rounds} is the number of rounds the job had completed when the reading was taken,
 * -1 where unknown.
 */
public record LinkCounters(double time, long rounds, Map<String, Counts> ports) {

  /** Bytes and packets of one port since the link was created. */
  public record Counts(long receivedBytes, long transmittedBytes, long receivedPackets, long transmittedPackets) {
    public Counts minus(Counts earlier) {
      return new Counts(receivedBytes - earlier.receivedBytes, transmittedBytes - earlier.transmittedBytes,
          receivedPackets - earlier.receivedPackets, transmittedPackets - earlier.transmittedPackets);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  public LinkCounters {
    ports = Map.copyOf(ports);
  }

  /** Parses one reading; {@code source} names it in the error. */
  public static LinkCounters parse(String json, String source) {
    try {
      JsonNode root = JSON.readTree(json);
      JsonNode links = root.path("links");
      if (!root.path("t").isNumber() || !links.isArray()) {
        throw new IllegalArgumentException(source + ": expected {\"t\": seconds, \"links\": [...]}, got "
            + abbreviate(json));
      }
      Map<String, Counts> ports = new LinkedHashMap<>();
      for (JsonNode link : links) {
        JsonNode stats = link.path("stats64");
        if (stats.isMissingNode()) {
          throw new IllegalArgumentException(source + ": link " + link.path("ifname").asText() + " has no stats64 "
              + "(read with ip -s -j link show)");
        }
        ports.put(link.path("ifname").asText(), new Counts(stats.path("rx").path("bytes").asLong(),
            stats.path("tx").path("bytes").asLong(), stats.path("rx").path("packets").asLong(),
            stats.path("tx").path("packets").asLong()));
      }
      return new LinkCounters(root.path("t").asDouble(), root.path("rounds").asLong(-1), ports);
    } catch (IOException e) {
      throw new UncheckedIOException(source + ": not JSON: " + e.getMessage(), e);
    }
  }

  /** The counts of {@code port}. */
  public Counts port(String port) {
    Counts counts = ports.get(port);
    if (counts == null) {
      throw new IllegalArgumentException("no counters of port " + port + " in the reading at t = " + time);
    }
    return counts;
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }
}
