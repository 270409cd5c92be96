package org.bitopk.job.checkpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The settings that decide a run's arithmetic, in a canonical text stored in each checkpoint: resuming with
 * different ones would silently produce a run that is neither the old one nor a new one. Settings that only
 * say where or how long to run, or what to log, are left out, so a run can be resumed on another cluster or
 * extended with more epochs; nor is the number of tasks the workers are packed into (the result is the same
 * for any).
 */
public final class ConfigDigest {
  /** Flags that do not change the rounds' arithmetic. */
  static final Set<String> IGNORED = Set.of("master", "output", "overwrite", "quiet", "epochs", "max-iterations",
      "eval-every", "consistency-check-every", "checkpoint-every", "xi", "capture-vectors", "config", "resume", "data",
      "snapshot-every", "update-window", "tasks");

  private ConfigDigest() {}

  /** One "flag=value" line per relevant setting, sorted. */
  public static String of(Map<String, ?> flags) {
    StringBuilder text = new StringBuilder();
    new TreeMap<>(flags).forEach((k, v) -> {
      if (!IGNORED.contains(k) && !isDefaultScheme(k, v)) {
        text.append(k).append('=').append(v).append('\n');
      }
    });
    return text.toString();
  }

  /**
   * The default schemes are left out, so a run that uses them has the digest it had before the schemes could be
   * chosen, and its older checkpoints stay resumable.
   */
  private static boolean isDefaultScheme(String key, Object value) {
    String v = String.valueOf(value);
    return (key.equals("uplink-feedback") && v.equals("ef14"))
        || (key.equals("downlink-scheme") && (v.equals("ef") || v.equals("average")));
  }

  /** "lr: 0.1 -> 0.5, seed: 42 -> 7" for the settings that differ between two digests. */
  public static String differences(String before, String after) {
    Map<String, String> a = parse(before);
    Map<String, String> b = parse(after);
    List<String> out = new ArrayList<>();
    for (String key : new TreeSet<>(union(a, b))) {
      String x = a.get(key);
      String y = b.get(key);
      if (x == null ? y != null : !x.equals(y)) {
        out.add(key + ": " + x + " -> " + y);
      }
    }
    return String.join(", ", out);
  }

  private static Set<String> union(Map<String, String> a, Map<String, String> b) {
    Set<String> keys = new TreeSet<>(a.keySet());
    keys.addAll(b.keySet());
    return keys;
  }

  private static Map<String, String> parse(String digest) {
    Map<String, String> m = new TreeMap<>();
    for (String line : digest.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        m.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return m;
  }
}
