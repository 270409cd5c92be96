package org.bitopk.job.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.bitopk.job.BadInputException;
import org.bitopk.job.config.TrainingConfig;

/**
 * The files a run reads (every file under {@code --data}, or the table's files), each with its
 * size and modification time, recorded in config.json as {@code resolved.input_files}. A resume compares them
 * with the files as they are now and refuses to continue rounds trained on other data. Generated data sets
 * and catalog tables have no files here; names starting with '.' or '_' (checksums, markers) are left out.
 */
final class InputFingerprint {
  static final String KEY = "input_files";

  private InputFingerprint() {}

  /** Qualified path to "N bytes, modified TIME" of every input file of {@code config}. */
  static Map<String, String> of(TrainingConfig config, Configuration conf) {
    Map<String, String> files = new TreeMap<>();
    String location = config.table() == null ? config.data()
        : config.table().isDataFrame() ? null : config.table().path();   // a table's --data is "format:path"
    if (location != null) {
      Path path = new Path(location);
      try {
        FileSystem fs = path.getFileSystem(conf);
        RemoteIterator<LocatedFileStatus> listed = fs.listFiles(path, true);
        while (listed.hasNext()) {
          FileStatus file = listed.next();
          String name = file.getPath().getName();
          if (!name.startsWith(".") && !name.startsWith("_")) {
            files.put(file.getPath().toString(), file.getLen() + " bytes, modified "
                + Instant.ofEpochMilli(file.getModificationTime()));
          }
        }
      } catch (FileNotFoundException missing) {
        // the reader reports a missing input, naming what it looked for
      } catch (IOException e) {
        throw new BadInputException("--data " + location + ": cannot list its files: " + e.getMessage(), e);
      }
    }
    return files;
  }

  /**
   * Refuses a resume whose input files differ from those recorded in the run's config.json (runs recorded
   * before input files were recorded are not checked).
   *
   * @throws BadInputException naming the first file that changed, appeared or disappeared
   */
  static void requireUnchanged(JsonNode previousConfig, Path configFile, Map<String, String> now) {
    JsonNode recorded = previousConfig.path("resolved").path(KEY);
    if (!recorded.isObject()) {
      return;
    }
    Map<String, String> then = new TreeMap<>();
    recorded.fields().forEachRemaining(e -> then.put(e.getKey(), e.getValue().asText()));
    String change = null;
    for (Map.Entry<String, String> file : then.entrySet()) {
      String current = now.get(file.getKey());
      if (current == null) {
        change = file.getKey() + " is gone (was " + file.getValue() + ")";
      } else if (!current.equals(file.getValue())) {
        change = file.getKey() + " changed (" + file.getValue() + ", now " + current + ")";
      }
      if (change != null) {
        break;
      }
    }
    if (change == null) {
      change = now.keySet().stream().filter(f -> !then.containsKey(f)).findFirst()
          .map(f -> f + " is new (" + now.get(f) + ")").orElse(null);
    }
    if (change != null) {
      throw new BadInputException("--resume: the input is not the data the run was trained on: " + change
          + " (recorded in " + configFile + "); a resumed run continues only on the same data: start a new run "
          + "into another --output instead");
    }
  }
}
