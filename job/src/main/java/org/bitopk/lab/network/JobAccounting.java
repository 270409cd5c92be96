package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the job says it sent: the sums of {@code up_bytes}, {@code down_bytes} (one broadcast payload per round)
 * and {@code down_bytes_delivered} over every {@code metrics/iterations.jsonl} below a directory (one for
 * {@code train}, one per run for {@code experiment} and {@code time-to-accuracy}); {@code workers} is the
 * largest worker count of those runs.
 */
public record JobAccounting(int runs, long rounds, int workers, long upBytes, long downBytes,
    long downBytesDelivered) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final JobAccounting NONE = new JobAccounting(0, 0, 0, 0, 0, 0);

  /** The sums over every iterations file below {@code directory} (none: {@link #NONE}). */
  public static JobAccounting under(Path directory) {
    if (!Files.isDirectory(directory)) {
      return NONE;
    }
    List<Path> files;
    try (Stream<Path> walk = Files.walk(directory)) {
      files = walk.filter(p -> p.endsWith(Path.of("metrics", "iterations.jsonl"))).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory + ": " + e.getMessage(), e);
    }
    JobAccounting sum = NONE;
    for (Path file : files) {
      sum = sum.plus(of(file));
    }
    return sum;
  }

  /** The sums over one iterations file. */
  static JobAccounting of(Path iterations) {
    return between(iterations, 0, Long.MAX_VALUE);
  }

  /** The sums over rounds {@code [from, to)} of one iterations file (its lines in that range). */
  public static JobAccounting between(Path iterations, long from, long to) {
    long index = 0;
    long rounds = 0;
    int workers = 0;
    long up = 0;
    long down = 0;
    long delivered = 0;
    try (Stream<String> lines = Files.lines(iterations)) {
      for (String line : (Iterable<String>) lines::iterator) {
        if (line.isBlank()) {
          continue;
        }
        index++;
        if (index <= from || index > to) {
          continue;
        }
        JsonNode record = JSON.readTree(line);
        rounds++;
        workers = Math.max(workers, record.path("workers").asInt());
        up += record.path("up_bytes").asLong();
        down += record.path("down_bytes").asLong();
        delivered += record.path("down_bytes_delivered").asLong();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + iterations + ": " + e.getMessage(), e);
    }
    return new JobAccounting(1, rounds, workers, up, down, delivered);
  }

  JobAccounting plus(JobAccounting other) {
    return new JobAccounting(runs + other.runs, rounds + other.rounds, Math.max(workers, other.workers),
        upBytes + other.upBytes,
        downBytes + other.downBytes, downBytesDelivered + other.downBytesDelivered);
  }

  /** Uplink plus delivered downlink: every byte the job counts as communication. */
  public long totalBytes() {
    return upBytes + downBytesDelivered;
  }
}
