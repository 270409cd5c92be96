package org.bitopk.job.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Which metric lines a resumed run keeps: those of its own run id for rounds before the checkpoint
 * (iterations &lt; from, epochs ending at or before it), each once. Rounds the resumed run writes again, torn
 * lines (a crash cut them short) and lines of another run are dropped and counted.
 */
public final class MetricLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The metric lines a resumed run continues from, and what had to be dropped or is missing. */
  public record Continuation(int keptIterations, int foreignLines, int tornLines, List<String> missingIterations) {
    public Continuation {
      missingIterations = List.copyOf(missingIterations);
    }

    /** A new run: nothing kept, nothing missing. */
    static Continuation none() {
      return new Continuation(0, 0, 0, List.of());
    }

    /** True when the kept lines cover every round before the checkpoint exactly once. */
    public boolean complete() {
      return missingIterations.isEmpty();
    }
  }

  /** The lines kept in each file, and what they amount to. */
  record Trimmed(List<String> iterations, List<String> epochs, Continuation continuation) {}

  private MetricLines() {}

  /**
   * Reads the metric files of the run directory {@code dir} through {@code reader} (absent files hold no line).
   * A crash can leave a local file system's checksum side file behind its data: pass the raw file system.
   */
  static Trimmed trim(FileSystem reader, Path dir, String runId, int fromIteration) throws IOException {
    BitSet seen = new BitSet(fromIteration);
    Counts iterations = read(reader, new Path(dir, RunDirectory.ITERATIONS), runId, line -> {
      long t = line.path("iteration").asLong(-1);
      if (t < 0 || t >= fromIteration || seen.get((int) t)) {
        return false;
      }
      seen.set((int) t);
      return true;
    });
    Set<Long> epochsSeen = new HashSet<>();
    Counts epochs = read(reader, new Path(dir, RunDirectory.EPOCHS), runId, line -> {
      long t = line.path("iteration").asLong(-1);
      return t >= 0 && t <= fromIteration && epochsSeen.add(line.path("epoch").asLong());
    });
    return new Trimmed(iterations.kept, epochs.kept, new Continuation(seen.cardinality(),
        iterations.foreign + epochs.foreign, iterations.torn + epochs.torn, ranges(seen, fromIteration)));
  }

  /** One file's kept lines, and the lines of another run and torn ones it held. */
  private static final class Counts {
    final List<String> kept = new ArrayList<>();
    int foreign;
    int torn;
  }

  private static Counts read(FileSystem reader, Path file, String runId, Predicate<JsonNode> keep)
      throws IOException {
    Counts counts = new Counts();
    if (!reader.exists(file)) {
      return counts;
    }
    try (BufferedReader in = new BufferedReader(new InputStreamReader(reader.open(file), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = JSON.readTree(line);
        } catch (JsonProcessingException torn) {
          counts.torn++;   // a line cut short by a crash: dropped, its round runs again
          continue;
        }
        if (node == null || !node.isObject()) {
          counts.torn++;
        } else if (!runId.equals(node.path("run").asText())) {
          counts.foreign++;
        } else if (keep.test(node)) {
          counts.kept.add(line);
        }
      }
    }
    return counts;
  }

  /** "5-9", "12" for the rounds below {@code limit} that are not in {@code seen}. */
  private static List<String> ranges(BitSet seen, int limit) {
    List<String> out = new ArrayList<>();
    int from = seen.nextClearBit(0);
    while (from < limit) {
      int to = Math.min(seen.nextSetBit(from) < 0 ? limit : seen.nextSetBit(from), limit) - 1;
      out.add(from == to ? Integer.toString(from) : from + "-" + to);
      from = seen.nextClearBit(to + 1);
    }
    return out;
  }
}
