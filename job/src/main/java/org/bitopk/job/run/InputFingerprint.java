package org.bitopk.job.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.datasets.Datasets;
import org.bitopk.job.BadInputException;
import org.bitopk.job.config.TableInput;
import org.bitopk.job.config.TrainingConfig;

/**
 * The files a run reads (every file under {@code --data}, or under the default Fashion-MNIST directory, the
 * table's and {@code --test-data}'s files), each with its size and the CRC32C of all its bytes, recorded in
 * config.json as {@code resolved.input_files}. A resume reads them again and refuses to continue rounds trained
 * on other data: a file rewritten with its size and modification time kept ({@code touch -r}) has other bytes.
 * Generated data sets and catalog tables have no files here; names starting with '.' or '_' (checksums,
 * markers) are left out. What reading every byte costs: job/docs/checkpoints.md.
 */
final class InputFingerprint {
  static final String KEY = "input_files";
  private static final int BUFFER = 1 << 20;

  private InputFingerprint() {}

  /** One input file as read now; {@code modified} only for runs recorded before checksums were. */
  record InputFile(long bytes, long modified, String crc32c) {
    Map<String, Object> recorded() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("bytes", bytes);
      m.put("crc32c", crc32c);
      return m;
    }

    String describe() {
      return String.format(Locale.ROOT, "%,d bytes, CRC32C %s", bytes, crc32c);
    }

    /** How runs recorded before checksums described a file. */
    String legacy() {
      return bytes + " bytes, modified " + Instant.ofEpochMilli(modified);
    }
  }

  /** Qualified path to size and checksum of every input file of {@code config} (reads every byte). */
  static Map<String, InputFile> of(TrainingConfig config, Configuration conf) {
    return of(locations(config), conf);
  }

  /** The same for every file under each of {@code locations} (files or directories). */
  static Map<String, InputFile> of(List<String> locations, Configuration conf) {
    Map<String, InputFile> files = new TreeMap<>();
    for (String location : locations) {
      Path path = new Path(location);
      try {
        FileSystem fs = path.getFileSystem(conf);
        for (FileStatus file : listed(fs, path)) {
          files.put(file.getPath().toString(), new InputFile(file.getLen(), file.getModificationTime(),
              crc32c(fs, file.getPath())));
        }
      } catch (FileNotFoundException missing) {
        // the reader reports a missing input, naming what it looked for
      } catch (IOException e) {
        throw new BadInputException("--data " + location + ": cannot read its files: " + e.getMessage(), e);
      }
    }
    return files;
  }

  /**
   * What config.json records: the files read now, or on a resume (which {@link #requireUnchanged} let through) the
   * files as recorded with their checksums, so that a resume reads its input files once.
   */
  static Object recorded(Optional<JsonNode> previousConfig, TrainingConfig config, Configuration conf) {
    JsonNode before = previousConfig.map(previous -> previous.path("resolved").path(KEY)).orElse(null);
    if (before != null && before.isObject() && before.size() > 0) {
      boolean withChecksums = true;
      for (JsonNode file : before) {
        withChecksums &= file.hasNonNull("crc32c");
      }
      if (withChecksums) {
        return before;
      }
    }
    Map<String, Object> out = new TreeMap<>();
    of(config, conf).forEach((path, file) -> out.put(path, file.recorded()));
    return out;
  }

  private static List<String> locations(TrainingConfig config) {
    List<String> locations = new ArrayList<>();
    if (config.table().isEmpty()) {
      if (config.data().isPresent()) {
        locations.add(config.data().get());
      } else if (Datasets.FASHION_MNIST.equals(config.dataset())) {
        locations.add("file://" + Datasets.FASHION_MNIST_DEFAULT);   // where Datasets reads it from
      }
    } else if (!config.table().get().isDataFrame()) {
      TableInput table = config.table().get();
      if (table.path() != null) {
        locations.add(table.path());   // a table's --data is "format:path"
      }
      table.testPath().ifPresent(locations::add);
    }
    return locations;
  }

  /**
   * Every file below {@code path} (or {@code path} itself), skipping names that start with '.' or '_'. Walked with
   * listStatus rather than listFiles, whose block locations make the local file system start a process per file
   * to read its permissions.
   */
  private static List<FileStatus> listed(FileSystem fs, Path path) throws IOException {
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus status : fs.listStatus(path)) {
      String name = status.getPath().getName();
      if (name.startsWith(".") || name.startsWith("_")) {
        continue;
      }
      if (status.isDirectory()) {
        files.addAll(listed(fs, status.getPath()));
      } else {
        files.add(status);
      }
    }
    return files;
  }

  private static String crc32c(FileSystem fs, Path path) throws IOException {
    CRC32C crc = new CRC32C();
    byte[] buffer = new byte[BUFFER];
    try (InputStream in = fs.open(path)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        crc.update(buffer, 0, n);
      }
    }
    return String.format(Locale.ROOT, "%08x", crc.getValue());
  }

  /**
   * Refuses a resume whose input files differ from those recorded in the run's config.json: by size and checksum,
   * or, for runs recorded before checksums, by size and modification time (runs recorded before input files were
   * recorded are not checked).
   *
   * @throws BadInputException naming the first file that changed, appeared or disappeared
   */
  static void requireUnchanged(JsonNode previousConfig, Path configFile, Map<String, InputFile> now) {
    JsonNode recorded = previousConfig.path("resolved").path(KEY);
    if (!recorded.isObject()) {
      return;
    }
    Map<String, JsonNode> then = new TreeMap<>();
    recorded.fields().forEachRemaining(e -> then.put(e.getKey(), e.getValue()));
    String change = null;
    for (Map.Entry<String, JsonNode> file : then.entrySet()) {
      InputFile current = now.get(file.getKey());
      JsonNode was = file.getValue();
      String wasText = was.isObject() ? String.format(Locale.ROOT, "%,d bytes, CRC32C %s",
          was.path("bytes").asLong(), was.path("crc32c").asText()) : was.asText();
      if (current == null) {
        change = file.getKey() + " is gone (was " + wasText + ")";
      } else if (was.isObject() ? was.path("bytes").asLong() != current.bytes()
          || !was.path("crc32c").asText().equals(current.crc32c()) : !was.asText().equals(current.legacy())) {
        change = file.getKey() + " changed (" + wasText + ", now "
            + (was.isObject() ? current.describe() : current.legacy()) + ")";
      }
      if (change != null) {
        break;
      }
    }
    if (change == null) {
      change = now.keySet().stream().filter(f -> !then.containsKey(f)).findFirst()
          .map(f -> f + " is new (" + now.get(f).describe() + ")").orElse(null);
    }
    if (change != null) {
      throw notTheSameData(change, configFile);
    }
  }

  static BadInputException notTheSameData(String change, Path configFile) {
    return new BadInputException("--resume: the input is not the data the run was trained on: " + change
        + " (recorded in " + configFile + "); a resumed run continues only on the same data: start a new run "
        + "into another --output instead");
  }
}
