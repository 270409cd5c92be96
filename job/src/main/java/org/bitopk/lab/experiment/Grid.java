package org.bitopk.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.config.FlagValues;
import org.bitopk.job.config.TrainFlags;
import org.bitopk.job.config.TrainSettings;
import org.bitopk.job.spark.SparkSetup;
import org.jspecify.annotations.Nullable;

/**
 * A grid of training runs: a {@code base} config (train flag names as keys, like a run's config.json), the
 * cartesian product of the {@code axes}, times a list of explicit {@code points} (settings that depend on
 * each other, e.g. the learning rate tuned per mode and number of workers). Every point is an ordinary run
 * whose settings are base, then its axis values, then its point's values; base keys its mode does not use
 * (the downlink's for unidirectional, the compressors' and densities for dense) are left out for it.
 *
 * <p>Optional keys: {@code name}, {@code description}, {@code expected_runtime} (text shown when listing),
 * {@code compare} (the keys whose values each get a comparison chart; default: {@link #rowKeys()}) and {@code reference_downlink_ratio} (workers to a published mean nnz(downlink)/nnz(aggregate), shown
 * next to the measured one).
 */
public final class Grid {
  private static final Set<String> TOP_LEVEL = Set.of("name", "description", "expected_runtime", "base", "axes",
      "points", "compare", "reference_downlink_ratio");

  private final String name;
  private final String description;
  private final @Nullable String expectedRuntime;
  private final List<GridPoint> points;
  private final List<String> varyingKeys;
  private final List<String> compareKeys;
  private final Map<Integer, Double> referenceDownlinkRatio;
  private final ObjectNode source;

  private Grid(String name, String description, String expectedRuntime, List<GridPoint> points,
      List<String> varyingKeys, List<String> compareKeys, Map<Integer, Double> referenceDownlinkRatio,
      ObjectNode source) {
    this.name = name;
    this.description = description;
    this.expectedRuntime = expectedRuntime;
    this.points = List.copyOf(points);
    this.varyingKeys = List.copyOf(varyingKeys);
    this.compareKeys = List.copyOf(compareKeys);
    this.referenceDownlinkRatio = Map.copyOf(referenceDownlinkRatio);
    this.source = source;
  }

  /**
   * Reads a grid file: JSON, or YAML when the name ends in .yaml or .yml (any Hadoop FileSystem URI).
   *
   * @throws IllegalArgumentException with one line naming the file and the key that is wrong
   */
  public static Grid read(String uri, Configuration conf) {
    Path path = new Path(uri);
    JsonNode root;
    try {
      FileSystem fs = path.getFileSystem(conf);
      if (!fs.exists(path)) {
        throw new IllegalArgumentException(uri + ": file does not exist");
      }
      boolean yaml = uri.endsWith(".yaml") || uri.endsWith(".yml");
      ObjectMapper mapper = yaml ? new ObjectMapper(new YAMLFactory()) : new ObjectMapper();
      try (InputStream in = fs.open(path)) {
        root = mapper.readTree(in);
      }
    } catch (IOException e) {
      String message = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
      throw new IllegalArgumentException(uri + ": not a valid grid file: " + message, e);
    }
    return parse(uri, root);
  }

  /** A grid from an already-parsed tree; {@code source} names it in error messages. */
  public static Grid parse(String source, JsonNode root) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(source + ": expected an object with 'base' and 'axes' and/or 'points'");
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!TOP_LEVEL.contains(key)) {
        throw new IllegalArgumentException(source + ": unknown key '" + key + "' (expected one of "
            + new java.util.TreeSet<>(TOP_LEVEL) + ")");
      }
    }
    String name = text(source, root, "name");
    Map<String, String> base = settings(source, "base", root.get("base"));

    List<Map<String, String>> combinations = new ArrayList<>();
    combinations.add(new LinkedHashMap<>());
    JsonNode axes = root.get("axes");
    Set<String> axisKeys = new LinkedHashSet<>();
    if (axes != null && !axes.isNull()) {
      if (!axes.isObject()) {
        throw new IllegalArgumentException(source + ": key 'axes' must be an object of flag name to list of values");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = axes.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> axis = it.next();
        String where = "axes." + axis.getKey();
        if (!axis.getValue().isArray()) {
          throw new IllegalArgumentException(source + ": key '" + where + "' must be a list of values");
        }
        if (axis.getValue().isEmpty()) {
          throw new IllegalArgumentException(source + ": key '" + where + "' is an empty axis");
        }
        axisKeys.add(axis.getKey());
        List<Map<String, String>> next = new ArrayList<>();
        for (Map<String, String> partial : combinations) {
          for (int i = 0; i < axis.getValue().size(); i++) {
            Map<String, String> extended = new LinkedHashMap<>(partial);
            extended.put(axis.getKey(), scalar(source, where + "[" + i + "]", axis.getValue().get(i)));
            next.add(extended);
          }
        }
        combinations = next;
      }
    }
    List<Map<String, String>> explicit = new ArrayList<>();
    JsonNode pointsNode = root.get("points");
    if (pointsNode != null && !pointsNode.isNull()) {
      if (!pointsNode.isArray()) {
        throw new IllegalArgumentException(source + ": key 'points' must be a list of objects");
      }
      if (pointsNode.isEmpty()) {
        throw new IllegalArgumentException(source + ": key 'points' is an empty list");
      }
      for (int i = 0; i < pointsNode.size(); i++) {
        Map<String, String> point = settings(source, "points[" + i + "]", pointsNode.get(i));
        for (String key : point.keySet()) {
          if (axisKeys.contains(key)) {
            throw new IllegalArgumentException(source + ": key 'points[" + i + "]." + key + "' is also an axis");
          }
        }
        explicit.add(point);
      }
    } else {
      explicit.add(new LinkedHashMap<>());
    }
    if ((axes == null || axes.isNull()) && (pointsNode == null || pointsNode.isNull())) {
      throw new IllegalArgumentException(source + ": needs key 'axes' or key 'points' (or both)");
    }

    List<Map<String, String>> own = new ArrayList<>();   // the values each point sets beyond the base
    for (Map<String, String> point : explicit) {
      for (Map<String, String> combination : combinations) {
        Map<String, String> values = new LinkedHashMap<>(combination);
        values.putAll(point);
        own.add(values);
      }
    }
    List<String> varying = varyingKeys(base, own);
    List<GridPoint> points = new ArrayList<>();
    Map<String, Integer> names = new LinkedHashMap<>();
    Configuration hadoop = SparkSetup.hadoopConfiguration();   // a point's model file: as a run would read it
    for (int i = 0; i < own.size(); i++) {
      Map<String, String> values = own.get(i);
      String pointName = values.containsKey("name") ? values.remove("name") : GridPoint.nameOf(varying, values);
      Map<String, String> settings = new LinkedHashMap<>(base);
      // base keys this point's mode does not use: the run would refuse them (a point's own values stay)
      settings.keySet().removeAll(TrainSettings.notApplicableTo(values.getOrDefault(TrainFlags.MODE,
          base.get(TrainFlags.MODE))));
      settings.putAll(values);
      Optional<String> refused = GridPoint.refusal(pointName);
      if (refused.isPresent()) {
        throw new IllegalArgumentException(source + ": point " + i + ": " + refused.get());
      }
      Integer earlier = names.put(pointName, i);
      if (earlier != null) {
        throw new IllegalArgumentException(source + ": duplicate point name '" + pointName + "' (points " + earlier
            + " and " + i + " have the same settings, or give them different 'name' keys)");
      }
      try {
        FlagValues.configOf(settings, hadoop);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(source + ": point '" + pointName + "': " + e.getMessage(), e);
      }
      Map<String, String> coordinates = new LinkedHashMap<>();
      for (String key : varying) {
        coordinates.put(key, settings.getOrDefault(key, ""));
      }
      points.add(new GridPoint(pointName, settings, coordinates));
    }
    List<String> compare = new ArrayList<>();
    JsonNode compareNode = root.get("compare");
    if (compareNode != null && !compareNode.isNull()) {
      if (!compareNode.isArray()) {
        throw new IllegalArgumentException(source + ": key 'compare' must be a list of flag names");
      }
      for (int i = 0; i < compareNode.size(); i++) {
        String key = scalar(source, "compare[" + i + "]", compareNode.get(i));
        if (!varying.contains(key)) {
          throw new IllegalArgumentException(source + ": key 'compare[" + i + "]' names '" + key
              + "', which does not vary in this grid (varying: " + varying + ")");
        }
        compare.add(key);
      }
    } else {
      compare.addAll(rowKeys(varying, points));
    }
    Map<Integer, Double> reference = new TreeMap<>();
    JsonNode ref = root.get("reference_downlink_ratio");
    if (ref != null && !ref.isNull()) {
      if (!ref.isObject()) {
        throw new IllegalArgumentException(source + ": key 'reference_downlink_ratio' must map workers to a ratio");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = ref.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        try {
          if (!e.getValue().isNumber()) {
            throw new NumberFormatException();
          }
          reference.put(Integer.parseInt(e.getKey()), e.getValue().doubleValue());
        } catch (NumberFormatException ex) {
          throw new IllegalArgumentException(source + ": key 'reference_downlink_ratio." + e.getKey()
              + "' must be a number of workers mapped to a number");
        }
      }
    }
    return new Grid(name == null ? new Path(source).getName().replaceFirst("\\.(json|ya?ml)$", "") : name,
        text(source, root, "description"), text(source, root, "expected_runtime"), points, varying, compare,
        reference, (ObjectNode) root.deepCopy());
  }

  /**
   * The varying keys other than the mode that the mode does not determine: the rows of a table whose columns
   * are the modes. A key whose value follows from the mode and the other keys (a learning rate tuned per mode
   * and P) is left out, since within one row it changes with the column.
   */
  static List<String> rowKeys(List<String> varying, List<GridPoint> points) {
    List<String> rows = new ArrayList<>(varying);
    rows.remove("mode");
    if (!varying.contains("mode")) {
      return rows;
    }
    while (true) {
      // Of the keys that follow the mode, drop the one with most distinct values first: a tuned value is finer
      // grained than the setting it was tuned for (lr per mode and P rather than P per mode and lr).
      String drop = null;
      int dropValues = 0;
      for (String key : rows) {
        List<String> others = new ArrayList<>(rows);
        others.remove(key);
        List<String> withMode = new ArrayList<>(others);
        withMode.add("mode");
        int values = (int) points.stream().map(p -> p.settings().getOrDefault(key, "")).distinct().count();
        if (determines(points, withMode, key) && !determines(points, others, key) && values > dropValues) {
          drop = key;
          dropValues = values;
        }
      }
      if (drop == null) {
        return rows;
      }
      rows.remove(drop);
    }
  }

  /** True when the values of {@code by} fix the value of {@code key} across the points. */
  private static boolean determines(List<GridPoint> points, List<String> by, String key) {
    Map<List<String>, String> seen = new LinkedHashMap<>();
    for (GridPoint p : points) {
      List<String> coordinates = new ArrayList<>();
      for (String k : by) {
        coordinates.add(p.settings().getOrDefault(k, ""));
      }
      String value = p.settings().getOrDefault(key, "");
      String previous = seen.put(coordinates, value);
      if (previous != null && !previous.equals(value)) {
        return false;
      }
    }
    return true;
  }

  /** The rows of the accuracy-by-mode table (see {@link #rowKeys(List, List)}). */
  public List<String> rowKeys() {
    return rowKeys(varyingKeys, points);
  }

  private static List<String> varyingKeys(Map<String, String> base, List<Map<String, String>> own) {
    Set<String> keys = new LinkedHashSet<>();
    for (Map<String, String> values : own) {
      keys.addAll(values.keySet());
    }
    keys.remove("name");
    List<String> varying = new ArrayList<>();
    for (String key : keys) {
      Set<String> seen = new LinkedHashSet<>();
      for (Map<String, String> values : own) {
        seen.add(values.getOrDefault(key, base.getOrDefault(key, "")));
      }
      if (seen.size() > 1) {
        varying.add(key);
      }
    }
    return varying;
  }

  private static Map<String, String> settings(String source, String where, JsonNode node) {
    Map<String, String> values = new LinkedHashMap<>();
    if (node == null || node.isNull()) {
      return values;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(source + ": key '" + where + "' must be an object of flag name to value");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      values.put(e.getKey(), scalar(source, where + "." + e.getKey(), e.getValue()));
    }
    return values;
  }

  private static String scalar(String source, String where, JsonNode value) {
    if (value == null || !value.isValueNode() || value.isNull()) {
      throw new IllegalArgumentException(source + ": key '" + where + "' must be a plain value (number, text or "
          + "boolean), got " + (value == null || value.isNull() ? "null" : value.getNodeType().toString().toLowerCase()));
    }
    return value.asText();
  }

  private static String text(String source, JsonNode root, String key) {
    JsonNode v = root.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(source + ": key '" + key + "' must be text");
    }
    return v.asText();
  }

  public String name() {
    return name;
  }

  public String description() {
    return description;
  }

  /** The runtime the grid file states (null when it does not). */
  public @Nullable String expectedRuntime() {
    return expectedRuntime;
  }

  public List<GridPoint> points() {
    return points;
  }

  /** The keys whose value differs between points, in the order they first appear. */
  public List<String> varyingKeys() {
    return varyingKeys;
  }

  /** The keys that get one comparison chart per value. */
  public List<String> compareKeys() {
    return compareKeys;
  }

  /** Workers to a published mean downlink/aggregate nnz ratio; empty when the grid states none. */
  public Map<Integer, Double> referenceDownlinkRatio() {
    return referenceDownlinkRatio;
  }

  /** The grid as read, for writing next to the results (so a summary needs nothing else). */
  public ObjectNode source() {
    return source.deepCopy();
  }
}
