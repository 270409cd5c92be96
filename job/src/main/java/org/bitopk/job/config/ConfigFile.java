package org.bitopk.job.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.JsonSyntax;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/**
 * A {@code --config} file (.properties or .json, any Hadoop FileSystem) whose keys are flag names without the
 * leading dashes; its values become the defaults that flags on the command line override. A run's
 * {@code config.json} is such a file (its informational keys {@code run} and {@code resolved} are ignored).
 * A key without a value ({@code null}, an empty string) is refused rather than read as "the default": a
 * setting either has a value or is left out.
 */
public final class ConfigFile implements CommandLine.IDefaultValueProvider {
  private static final Set<String> INFORMATIONAL = Set.of("run", "resolved");

  private final String uri;
  private final Map<String, String> values;

  private ConfigFile(String uri, Map<String, String> values) {
    this.uri = uri;
    this.values = values;
  }

  /** Values already read elsewhere (a grid point of the experiment command), flag name to value text. */
  static ConfigFile of(Map<String, String> values) {
    return new ConfigFile("a grid point", new LinkedHashMap<>(values));
  }

  /** The file's location, for messages. */
  String uri() {
    return uri;
  }

  /** True when the file sets {@code key} (a flag name without dashes). */
  boolean sets(String key) {
    return values.containsKey(key);
  }

  /** Finds {@code --config X} or {@code --config=X} in raw arguments; empty when absent. */
  public static Optional<String> locate(String[] args) {
    return locate(args, "--config");
  }

  /** Finds {@code FLAG X} or {@code FLAG=X} in raw arguments; empty when absent. */
  public static Optional<String> locate(String[] args, String flag) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(flag) && i + 1 < args.length) {
        return Optional.of(args[i + 1]);
      }
      if (args[i].startsWith(flag + "=")) {
        return Optional.of(args[i].substring(flag.length() + 1));
      }
    }
    return Optional.empty();
  }

  /**
   * Opens a settings file people edit by hand (a --config file, a run's config.json) without Hadoop's checksum:
   * the local file system's {@code .NAME.crc} beside a file it wrote is stale after any edit, and would refuse it.
   */
  public static InputStream openEdited(FileSystem fs, Path path) throws IOException {
    return fs instanceof ChecksumFileSystem checked ? checked.getRawFileSystem().open(path) : fs.open(path);
  }

  /**
   * Reads the file and checks every key against the command's options, skipping the keys in {@code ignored}.
   *
   * @param hadoop the file systems Spark will have: its {@code spark.hadoop.*} settings (credentials, schemes)
   *     apply here too
   * @throws IllegalArgumentException naming the file and the problem
   */
  public static ConfigFile load(String uri, CommandLine.Model.CommandSpec spec, Set<String> ignored,
      Configuration hadoop) {
    Map<String, String> values = new LinkedHashMap<>();
    try {
      Path path = new Path(uri);
      FileSystem fs = path.getFileSystem(hadoop);
      if (!fs.exists(path)) {
        throw new IllegalArgumentException("--config: file " + uri + " does not exist");
      }
      try (InputStream in = openEdited(fs, path)) {
        if (uri.endsWith(".properties")) {
          Properties p = new Properties();
          p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
          for (String k : p.stringPropertyNames()) {
            String v = p.getProperty(k).trim();
            if (v.isEmpty()) {
              throw new IllegalArgumentException("--config: key '" + k + "' in " + uri + " has an empty value: "
                  + "give a value or leave the key out (then the default applies)");
            }
            values.put(k, v);
          }
        } else {
          JsonNode root = new ObjectMapper().readTree(in);
          if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("--config: " + uri + " is not a JSON object of flag names to values");
          }
          for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (INFORMATIONAL.contains(e.getKey())) {
              continue;
            }
            JsonNode value = e.getValue();
            if (value.isNull() || (value.isTextual() && value.asText().isBlank())) {
              throw new IllegalArgumentException("--config: key '" + e.getKey() + "' in " + uri + " is "
                  + (value.isNull() ? "null" : "empty") + ": give a value or leave the key out (then the default "
                  + "applies)");
            }
            if (value.isObject()) {
              // how config.json records a network of one's own under "model": passed on as JSON text
              values.put(e.getKey(), value.toString());
              continue;
            }
            if (!value.isValueNode()) {
              throw new IllegalArgumentException("--config: key '" + e.getKey() + "' in " + uri + " must have a plain value");
            }
            values.put(e.getKey(), value.asText());
          }
        }
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--config: " + uri + " is not JSON: " + JsonSyntax.describe(e), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("--config: cannot read " + uri + ": " + e.getMessage(), e);
    }
    values.keySet().removeAll(ignored);
    for (String key : values.keySet()) {
      OptionSpec option = spec.findOption("--" + key);
      if (option == null || key.equals("config")) {
        throw new IllegalArgumentException("--config: unknown key '" + key + "' in " + uri
            + " (keys are flag names without dashes, e.g. lr, density-up)");
      }
    }
    return new ConfigFile(uri, values);
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (argSpec instanceof OptionSpec option) {
      return values.get(option.longestName().replaceFirst("^--", ""));
    }
    return null;
  }
}
