package org.bitopk.lab.experiment;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.bitopk.job.output.MachineEnvironment;

/**
 * One run of a grid: its directory name under the experiment's output, its complete settings (train flag
 * names to value texts, as in config.json) and its coordinates (the values of the grid's varying keys).
 */
public record GridPoint(String name, Map<String, String> settings, Map<String, String> coordinates) {
  public GridPoint {
    Objects.requireNonNull(name, "name");
    settings = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(settings));
    coordinates = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(coordinates));
  }

  /** The experiment directory's own files, which no point's directory may replace. */
  private static final Set<String> RESERVED = Set.of(ExperimentResults.GRID_FILE, "results.csv", "results.md",
      MachineEnvironment.FILE);

  /**
   * Why {@code name} cannot be a point's directory, or empty: it must be one directory name inside the
   * experiment directory (no '/', '\' or ':' (which Hadoop paths read as a scheme), not starting with '.', so
   * never '..'), and none of the experiment's own files.
   */
  static Optional<String> refusal(String name) {
    if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.contains(":")
        || name.startsWith(".")) {
      return Optional.of("name '" + name + "' must be a single directory name inside --out (not empty, no '/', "
          + "'\\' or ':', not starting with '.')");
    }
    if (RESERVED.contains(name)) {
      return Optional.of("name '" + name + "' is one of the experiment directory's own files (" + String.join(", ",
          new java.util.TreeSet<>(RESERVED)) + ")");
    }
    return Optional.empty();
  }

  /**
   * The directory name of a point from its varying values: the mode as is, every other key as key-value,
   * joined by '_' (e.g. {@code bidirectional_workers-50_lr-0.12}); characters other than letters, digits, '.',
   * '+' and '-' become '-', so the name is a safe path element on every file system.
   */
  static String nameOf(List<String> varying, Map<String, String> values) {
    StringBuilder b = new StringBuilder();
    for (String key : varying) {
      if (!values.containsKey(key)) {
        continue;
      }
      if (b.length() > 0) {
        b.append('_');
      }
      b.append(key.equals("mode") ? values.get(key) : key + "-" + values.get(key));
    }
    String name = b.length() == 0 ? "run" : b.toString();
    return name.replaceAll("[^A-Za-z0-9._+-]", "-").replaceAll("-+", "-");
  }
}
