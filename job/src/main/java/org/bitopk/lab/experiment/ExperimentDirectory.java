package org.bitopk.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;
import org.bitopk.job.output.DirectoryEntries;
import org.bitopk.job.output.MachineEnvironment;
import org.bitopk.job.output.RecordingFileSystem;
import org.bitopk.job.output.RunManifest;
import org.bitopk.job.output.WriteRecord;

/**
 * The files an experiment writes beside its points' run directories (grid.json, results.csv, results.md, the
 * compare charts, environment.json), recorded in the experiment directory's manifest like a run's files. Before
 * anything is written, every one of those names that is already there must be the experiment's, still as
 * written: a user's results.md, a grid.json of another grid, a link or a FIFO under one of those names is refused
 * in one line naming them all, and nothing is written. A directory written before manifests existed is the
 * experiment's when its grid.json is this grid; then its other files are taken as the experiment's, as before.
 */
final class ExperimentDirectory {
  static final String RESULTS_CSV = "results.csv";
  static final String RESULTS_MD = "results.md";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ExperimentDirectory() {}

  /** Every file the experiment of {@code grid} writes at the top of its directory. */
  static List<String> files(Grid grid) {
    Set<String> names = new LinkedHashSet<>(List.of(ExperimentResults.GRID_FILE, RESULTS_CSV, RESULTS_MD,
        MachineEnvironment.FILE));
    if (grid.compareKeys().isEmpty()) {
      names.add("compare.png");
    }
    for (String key : grid.compareKeys()) {
      for (GridPoint point : grid.points()) {
        names.add(chartName(key, point.settings().getOrDefault(key, "")));
      }
    }
    return List.copyOf(names);
  }

  /**
   * Checks {@code dir} (flag {@code flag}) before the experiment of {@code grid} writes there and returns the
   * file system to write its files through: one recording them in the directory's manifest (created, or
   * adopting an earlier experiment's files, when there is none).
   *
   * @throws BadInputException naming every entry under those names that is not the experiment's
   */
  static FileSystem claim(FileSystem fs, Path dir, Grid grid, String flag) {
    try {
      Optional<RunManifest> manifest = RunManifest.read(fs, dir);
      List<String> foreign = new ArrayList<>();
      List<String> adopted = new ArrayList<>();
      boolean sameGrid = isGridFile(fs, new Path(dir, ExperimentResults.GRID_FILE), grid);
      for (String name : files(grid)) {
        DirectoryEntries.Entry entry = DirectoryEntries.at(fs, new Path(dir, name));
        if (entry == null) {
          continue;
        }
        boolean own = manifest.isPresent() ? manifest.get().matches(name, entry) : entry.isFile() && sameGrid;
        if (!own) {
          foreign.add(name + (entry.isFile() ? "" : " (" + entry.kind().describe() + ")"));
        } else if (manifest.isEmpty()) {
          adopted.add(name);
        }
      }
      if (!foreign.isEmpty()) {
        throw new BadInputException(flag + " " + dir + " holds files the experiment did not write ("
            + String.join(", ", foreign) + "): move them out of the directory or choose another directory; "
            + "nothing was written");
      }
      if (manifest.isPresent()) {
        return new RecordingFileSystem(fs, manifest.get());
      }
      fs.mkdirs(dir);
      RunManifest created = RunManifest.create(fs, dir, "experiment-" + grid.name());
      for (String name : adopted) {
        created.written(name, fs.getFileStatus(new Path(dir, name)).getLen());
      }
      return new RecordingFileSystem(fs, created);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot look into " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Writes {@code name} in {@code dir} with {@code write}, recording it when {@code fs} records. */
  static void recorded(FileSystem fs, Path dir, String name, Runnable write) throws IOException {
    Optional<WriteRecord> manifest = fs instanceof RecordingFileSystem r ? Optional.of(r.manifest())
        : Optional.empty();
    if (manifest.isPresent()) {
      manifest.get().writing(name);
    }
    write.run();
    if (manifest.isPresent()) {
      manifest.get().written(name, fs.getFileStatus(new Path(dir, name)).getLen());
    }
  }

  /** True when {@code file} is a regular file holding exactly {@code grid}'s source. */
  private static boolean isGridFile(FileSystem fs, Path file, Grid grid) throws IOException {
    DirectoryEntries.Entry entry = DirectoryEntries.at(fs, file);
    if (entry == null || !entry.isFile()) {
      return false;
    }
    try (InputStream in = fs.open(file)) {
      JsonNode written = JSON.readTree(in);
      return grid.source().equals(written);
    } catch (IOException notJson) {
      return false;
    }
  }

  /** The chart of the points whose compare key {@code key} has {@code value}. */
  static String chartName(String key, String value) {
    return GridPoint.nameOf(List.of("compare"), Map.of("compare", key + "-" + value)) + ".png";
  }
}
