package org.bitopk.job.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.DirectoryEntries.Entry;

/**
 * What a directory holds, told apart by bitopk's own marks rather than by names alone: a {@code config.json}
 * that is a run's (a JSON object with a run id and the resolved settings), metric lines of a run, checkpoints
 * with their exact names and header, captures and driver logs with their exact names, the lease. The final
 * files that carry no mark of their own ({@code _SUCCESS}, the model, the report) count as bitopk's only beside
 * a run's {@code config.json}. Everything else is foreign: a user's {@code config.json}, {@code checkpoints/}
 * of PyTorch, a {@code README.md}.
 *
 * <p>A directory with a {@link RunManifest} is judged by it instead ({@link ManifestContents}). A symbolic link,
 * FIFO, socket or device is never bitopk's: it is neither followed nor opened.
 *
 * <p>The entries bitopk wrote are listed children before parents, so they can be removed one by one without
 * ever removing a directory that still holds something else.
 */
public final class RunContents {
  static final String CHECKPOINTS = "checkpoints";
  /** The first bytes of every checkpoint file. */
  private static final byte[] CHECKPOINT_MAGIC = "BITOPKCK".getBytes(StandardCharsets.US_ASCII);
  private static final Pattern CHECKPOINT = Pattern.compile("checkpoint-\\d{10}\\.bin");
  private static final Pattern CAPTURE_ROUND = Pattern.compile("round-\\d{6,}");
  private static final Pattern CAPTURE_FILE = Pattern.compile("worker-\\d{4,}\\.bin");
  private static final Pattern MODEL_STAGING = Pattern.compile(AtomicFiles.TEMPORARY_PREFIX + "model-[0-9a-f]{8}");
  private static final Set<String> MODEL_FILES = Set.of("model.zip", "model.json");
  private static final Pattern DRIVER_LOG = Pattern.compile("driver-\\d{8}-\\d{6}\\.log");
  private static final Set<String> DIRECTORIES = Set.of(RunDirectory.METRICS, CHECKPOINTS, RunDirectory.CAPTURES,
      RunDirectory.LOGS);
  private static final Set<String> METRIC_FILES = Set.of("iterations.jsonl", "epochs.jsonl");
  /** Written at the end of a run; recognised only beside a run's config.json. */
  private static final Set<String> FINAL_FILES = Set.of(RunDirectory.SUCCESS, RunDirectory.SUMMARY, "model.zip",
      "model.json", "report.png", "report.html");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Path> own;
  private final List<String> foreign;
  private final List<String> changed;
  private final boolean runConfig;
  private final boolean finished;
  private final int checkpoints;
  private final boolean recordsRun;

  private RunContents(List<Path> own, List<String> foreign, List<String> changed, boolean runConfig, boolean finished,
      int checkpoints, boolean recordsRun) {
    this.own = List.copyOf(own);
    this.foreign = List.copyOf(foreign);
    this.changed = List.copyOf(changed);
    this.runConfig = runConfig;
    this.finished = finished;
    this.checkpoints = checkpoints;
    this.recordsRun = recordsRun;
  }

  /** Reads the directory {@code dir} (which exists) without changing anything. */
  public static RunContents of(FileSystem fs, Path dir) throws IOException {
    java.util.Optional<RunManifest> manifest = RunManifest.read(fs, dir);
    if (manifest.isPresent()) {
      return ofManifest(fs, dir, manifest.get());
    }
    // Read raw bytes: a hand-edited file's stale checksum side file must not make it unreadable here.
    Scan scan = new Scan(fs, RunDirectory.raw(fs));
    List<Entry> entries = DirectoryEntries.list(fs, dir);
    Entry config = entries.stream().filter(e -> e.isFile() && e.name().equals(RunDirectory.CONFIG)).findFirst()
        .orElse(null);
    boolean runConfig = config != null && scan.isRunConfig(config.path());
    boolean finished = false;
    for (Entry entry : entries) {
      String name = entry.name();
      boolean mine;
      if (SideFiles.isSideFile(name) && entry.isFile()) {
        continue;   // judged with the file it belongs to, below
      } else if (!entry.isFile() && !entry.isDirectory()) {
        mine = false;   // never followed, never read: a link may lead into anybody's files, a FIFO blocks
      } else if (name.equals(RunLease.FILE) || name.startsWith(AtomicFiles.TEMPORARY_PREFIX)) {
        // a temporary file, or the model's staging directory holding nothing but the model
        mine = entry.isFile() || MODEL_STAGING.matcher(name).matches() && scan.modelStaging(entry);
      } else if (entry.isDirectory()) {
        mine = scan.directory(entry, name);
      } else if (name.equals(RunDirectory.CONFIG)) {
        mine = runConfig;
      } else if (FINAL_FILES.contains(name) && runConfig) {
        mine = !name.equals(RunDirectory.SUMMARY) || scan.firstLineStartsWith(entry.path(), "bitopk run ");
        finished |= mine && name.equals(RunDirectory.SUCCESS);
      } else {
        mine = false;
      }
      scan.account(entry, mine);
      if (mine && !name.equals(RunLease.FILE) && !name.equals(RunDirectory.LOGS)
          && !name.startsWith(AtomicFiles.TEMPORARY_PREFIX)) {
        scan.recordsRun = true;
      }
    }
    scan.topLevelSideFiles(entries);
    return new RunContents(scan.own, scan.foreign, List.of(), runConfig, finished, scan.checkpoints,
        scan.recordsRun);
  }

  /** Reads {@code dir} against its {@code manifest} ({@link ManifestContents}) without changing anything. */
  private static RunContents ofManifest(FileSystem fs, Path dir, RunManifest manifest) throws IOException {
    ManifestContents scan = ManifestContents.of(fs, dir, manifest);
    boolean runConfig = scan.owns(RunDirectory.CONFIG)
        && isRunConfig(RunDirectory.raw(fs), new Path(dir, RunDirectory.CONFIG));
    boolean finished = runConfig && scan.owns(RunDirectory.SUCCESS);
    return new RunContents(scan.own(), scan.foreign(), scan.changed(), runConfig, finished, scan.checkpoints(),
        scan.recordsRun());
  }

  /** The first bytes of every checkpoint file (the checkpoint codec writes them). */
  public static byte[] checkpointMagic() {
    return CHECKPOINT_MAGIC.clone();
  }

  /** The entries bitopk wrote, children before their directory. */
  public List<Path> own() {
    return own;
  }

  /** The entries bitopk did not write (relative names, sorted). */
  public List<String> foreign() {
    return foreign;
  }

  /** The run's files whose size changed since it wrote them (relative paths, sorted; none without manifest). */
  public List<String> changed() {
    return changed;
  }

  /** True when {@code config.json} is a run's. */
  public boolean hasRunConfig() {
    return runConfig;
  }

  /** True when the run's {@code _SUCCESS} is there. */
  public boolean finished() {
    return finished;
  }

  /** Checkpoint files (exact name and header). */
  public int checkpoints() {
    return checkpoints;
  }

  /** True when something of a run is there beyond the lease, logs and temporary files. */
  public boolean recordsRun() {
    return recordsRun;
  }

  /** The walk over one directory tree, collecting bitopk's entries and foreign ones. */
  private static final class Scan {
    final FileSystem fs;
    final FileSystem raw;
    final List<Path> own = new ArrayList<>();
    final List<String> foreign = new ArrayList<>();
    int checkpoints;
    boolean recordsRun;

    Scan(FileSystem fs, FileSystem raw) {
      this.fs = fs;
      this.raw = raw;
    }

    void account(Entry entry, boolean mine) {
      if (mine) {
        own.add(entry.path());
      } else {
        foreign.add(entry.kind().nameInMessages(entry.name()));
      }
    }

    /** A directory bitopk writes, holding only bitopk's files: metrics, checkpoints, captures, logs. */
    boolean directory(Entry dir, String name) throws IOException {
      if (!DIRECTORIES.contains(name)) {
        return false;
      }
      List<Entry> entries = DirectoryEntries.list(fs, dir.path());
      int checkpointsHere = 0;
      List<Path> children = new ArrayList<>();
      for (Entry entry : entries) {
        String child = entry.name();
        if (!entry.isFile() && !entry.isDirectory()) {
          return false;
        }
        if (SideFiles.isSideFile(child) && entry.isFile()) {
          continue;
        }
        boolean mine = child.startsWith(AtomicFiles.TEMPORARY_PREFIX) && entry.isFile() || switch (name) {
          case RunDirectory.METRICS -> entry.isFile() && METRIC_FILES.contains(child)
              && firstLineStartsWith(entry.path(), "{\"run\":");
          case CHECKPOINTS -> entry.isFile() && CHECKPOINT.matcher(child).matches() && startsWith(entry.path(),
              CHECKPOINT_MAGIC);
          case RunDirectory.CAPTURES -> entry.isDirectory() && CAPTURE_ROUND.matcher(child).matches()
              && captureRound(entry.path(), children);
          case RunDirectory.LOGS -> entry.isFile() && DRIVER_LOG.matcher(child).matches();
          default -> false;
        };
        if (!mine) {
          return false;
        }
        if (name.equals(CHECKPOINTS) && !child.startsWith(AtomicFiles.TEMPORARY_PREFIX)) {
          checkpointsHere++;
        }
        children.add(entry.path());
      }
      if (!sideFiles(entries, children)) {
        return false;
      }
      own.addAll(children);
      checkpoints += checkpointsHere;
      return true;
    }

    /** The model's staging directory holding only a model file (and its side file): added with it. */
    boolean modelStaging(Entry dir) throws IOException {
      List<Entry> entries = DirectoryEntries.list(fs, dir.path());
      List<Path> files = new ArrayList<>();
      for (Entry entry : entries) {
        if (!entry.isFile()) {
          return false;
        }
        if (MODEL_FILES.contains(entry.name())) {
          files.add(entry.path());
        } else if (!SideFiles.isSideFile(entry.name())) {
          return false;
        }
      }
      if (!sideFiles(entries, files)) {
        return false;
      }
      own.addAll(files);
      return true;
    }

    /** A round's capture files, added to {@code into} before the round's directory. */
    private boolean captureRound(Path round, List<Path> into) throws IOException {
      List<Entry> entries = DirectoryEntries.list(fs, round);
      List<Path> files = new ArrayList<>();
      for (Entry entry : entries) {
        String name = entry.name();
        if (SideFiles.isSideFile(name) && entry.isFile()) {
          continue;
        }
        if (!entry.isFile() || !(CAPTURE_FILE.matcher(name).matches()
            || name.startsWith(AtomicFiles.TEMPORARY_PREFIX))) {
          return false;
        }
        files.add(entry.path());
      }
      if (!sideFiles(entries, files)) {
        return false;
      }
      into.addAll(files);
      return true;
    }

    /** Checksum side files of bitopk's files are bitopk's; any other is foreign (false, or listed). */
    private boolean sideFiles(List<Entry> entries, List<Path> mine) {
      List<String> names = mine.stream().map(Path::getName).toList();
      List<Path> sides = new ArrayList<>();
      for (Entry entry : entries) {
        String name = entry.name();
        if (SideFiles.isSideFile(name) && entry.isFile()) {
          String main = SideFiles.fileOf(name);
          if (!names.contains(main) && entries.stream().anyMatch(e -> e.name().equals(main))) {
            return false;
          }
          sides.add(entry.path());
        }
      }
      mine.addAll(0, sides);
      return true;
    }

    /** At the top level: side files follow the verdict on their file. */
    void topLevelSideFiles(List<Entry> entries) {
      List<String> mine = own.stream().map(Path::getName).toList();
      for (Entry entry : entries) {
        String name = entry.name();
        if (SideFiles.isSideFile(name) && entry.isFile()) {
          String main = SideFiles.fileOf(name);
          account(entry, mine.contains(main) || entries.stream().noneMatch(e -> e.name().equals(main)));
        }
      }
      foreign.sort(null);
    }

    boolean isRunConfig(Path file) {
      return RunContents.isRunConfig(raw, file);
    }

    /** True when the file is empty (written, nothing recorded yet) or its first line starts with {@code prefix}. */
    boolean firstLineStartsWith(Path file, String prefix) throws IOException {
      return RunContents.firstLineStartsWith(raw, file, prefix);
    }

    boolean startsWith(Path file, byte[] magic) throws IOException {
      try (InputStream in = raw.open(file)) {
        return Arrays.equals(in.readNBytes(magic.length), magic);
      } catch (FileNotFoundException gone) {
        return true;
      }
    }
  }

  /** True when {@code file} is a run's config.json: a JSON object with a run id and the resolved settings. */
  static boolean isRunConfig(FileSystem raw, Path file) {
    try (InputStream in = raw.open(file)) {
      JsonNode node = JSON.readTree(in);
      return node != null && node.isObject() && node.path("run").isTextual() && !node.path("run").asText().isEmpty()
          && node.path("resolved").isObject();
    } catch (IOException notJson) {
      return false;
    }
  }

  /** True when the file is empty (written, nothing recorded yet) or its first line starts with {@code prefix}. */
  static boolean firstLineStartsWith(FileSystem raw, Path file, String prefix) throws IOException {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(raw.open(file), StandardCharsets.UTF_8))) {
      String first = in.readLine();
      return first == null || first.startsWith(prefix);
    } catch (FileNotFoundException gone) {
      return true;
    }
  }
}
