package org.bitopk.job.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.jspecify.annotations.Nullable;

/**
 * Every file and directory one run created in its output directory, in {@value #FILE}: its path relative to the
 * directory, its kind and, once written and closed, its size. Each entry is recorded before the file or
 * directory is created (size unknown while it is written), and the manifest is replaced atomically at every
 * change, so a driver killed at any moment leaves a manifest naming all it wrote.
 *
 * <p>What {@code --overwrite}, checkpoint pruning and the experiment runner may remove is exactly what the
 * manifest names and is still as written ({@link #matches}): a directory that is a directory, a file that is a
 * regular file of the recorded size. A symbolic link, a FIFO, socket or device, a file of another size or any
 * name the manifest lacks is someone else's.
 */
public final class RunManifest implements WriteRecord {
  public static final String FILE = "_bitopk.manifest";
  static final String DIRECTORY = "directory";
  static final String REGULAR = "file";
  /** The size of a file still being written (or whose writer was killed): any size is its own. */
  static final long WRITING = -1;
  private static final int FORMAT = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One recorded entry: {@code kind} is "directory" or "file"; {@code size} {@value #WRITING} while written;
   * {@code grows} for a file the run appends to (metric lines, the driver's log), which a writer killed after
   * the size was recorded may have made longer.
   */
  public record Recorded(String path, String kind, long size, boolean grows) {}

  private final FileSystem fs;
  private final Path root;
  private final String run;
  private final Map<String, Recorded> entries = new TreeMap<>();
  /** Run before every change: throws when the run may no longer write here (its lease was taken over). */
  private volatile Runnable beforeChange = () -> { };

  private RunManifest(FileSystem fs, Path root, String run) {
    this.fs = RunDirectory.raw(fs);
    this.root = fs.makeQualified(root);
    this.run = run;
  }

  /** A new, empty manifest of run {@code run} in {@code root}, written now (replacing any earlier one). */
  public static RunManifest create(FileSystem fs, Path root, String run) throws IOException {
    RunManifest manifest = new RunManifest(fs, root, run);
    manifest.save();
    return manifest;
  }

  /**
   * The manifest in {@code root}, if there is one.
   *
   * @throws IOException when it is there but is not a manifest (a link, a FIFO, unreadable JSON)
   */
  public static Optional<RunManifest> read(FileSystem fs, Path root) throws IOException {
    Path file = new Path(root, FILE);
    DirectoryEntries.Entry entry = DirectoryEntries.at(fs, file);
    if (entry == null) {
      return Optional.empty();
    }
    if (!entry.isFile()) {
      throw new IOException(file + " is " + entry.kind().describe() + ", not bitopk's manifest");
    }
    JsonNode node;
    try (InputStream in = RunDirectory.raw(fs).open(file)) {
      node = JSON.readTree(in);
    } catch (FileNotFoundException gone) {
      return Optional.empty();
    }
    if (node == null || !node.path("run").isTextual() || !node.path("entries").isArray()) {
      throw new IOException(file + " is not bitopk's manifest (no run, no entries)");
    }
    RunManifest manifest = new RunManifest(fs, root, node.get("run").asText());
    for (JsonNode e : node.get("entries")) {
      String path = e.path("path").asText("");
      String kind = e.path("kind").asText("");
      if (path.isEmpty() || path.startsWith("/") || path.contains("..") || !(kind.equals(DIRECTORY)
          || kind.equals(REGULAR))) {
        throw new IOException(file + " holds an entry that is not a run's: " + e);
      }
      manifest.entries.put(path, new Recorded(path, kind, e.path("size").asLong(WRITING),
          e.path("grows").asBoolean(false)));
    }
    return Optional.of(manifest);
  }

  /** Runs {@code check} before every change from now on (the run's lease check). */
  public void checkedBy(Runnable check) {
    beforeChange = check;
  }

  /** The run that wrote this manifest. */
  public String run() {
    return run;
  }

  /** The directory this manifest describes. */
  public Path root() {
    return root;
  }

  /** The entry recorded for {@code relative}, if any. */
  public synchronized Optional<Recorded> entry(String relative) {
    return Optional.ofNullable(entries.get(relative));
  }

  /** Every recorded entry, sorted by path (a directory before what it holds). */
  public synchronized List<Recorded> entries() {
    return List.copyOf(entries.values());
  }

  /** True when {@code found} is the entry recorded under {@code relative}, still as it was written. */
  @Override
  public synchronized boolean matches(String relative, DirectoryEntries.Entry found) {
    Recorded r = entries.get(relative);
    return isKindRecorded(relative, found) && (r.kind().equals(DIRECTORY) || r.size() == WRITING
        || r.size() == found.size() || r.grows() && found.size() > r.size());
  }

  /**
   * True when {@code found} is of the kind recorded under {@code relative} (a directory, a regular file),
   * whatever its size: the run's own entry, perhaps edited since.
   */
  public synchronized boolean isKindRecorded(String relative, DirectoryEntries.Entry found) {
    Recorded r = entries.get(relative);
    return r != null && (r.kind().equals(DIRECTORY) ? found.isDirectory() : found.isFile());
  }

  /** Records a directory about to be created. */
  @Override
  public synchronized void directory(String relative) throws IOException {
    Recorded r = entries.get(relative);
    if (r == null || !r.kind().equals(DIRECTORY)) {
      entries.put(relative, new Recorded(relative, DIRECTORY, 0, false));
      save();
    }
  }

  /** Records a file about to be created or appended to (its size is unknown until {@link #written}). */
  @Override
  public synchronized void writing(String relative) throws IOException {
    Recorded r = entries.get(relative);
    if (r == null || r.size() != WRITING || !r.kind().equals(REGULAR) || r.grows()) {
      entries.put(relative, new Recorded(relative, REGULAR, WRITING, false));
      save();
    }
  }

  /** Records a file the run appends to from now on (any size until {@link #written}, then at least that). */
  @Override
  public synchronized void growing(String relative) throws IOException {
    Recorded r = entries.get(relative);
    if (r == null || r.size() != WRITING || !r.grows()) {
      entries.put(relative, new Recorded(relative, REGULAR, WRITING, true));
      save();
    }
  }

  /** Records a file's size once it is written and closed. */
  @Override
  public synchronized void written(String relative, long size) throws IOException {
    Recorded r = entries.get(relative);
    entries.put(relative, new Recorded(relative, REGULAR, size, r != null && r.grows()));
    save();
  }

  /** Moves the entry of {@code from} (and of everything under it) to {@code to} after a rename. */
  @Override
  public synchronized void moved(String from, String to) throws IOException {
    Map<String, Recorded> moved = new TreeMap<>();
    for (Recorded r : List.copyOf(entries.values())) {
      if (r.path().equals(from) || r.path().startsWith(from + "/")) {
        entries.remove(r.path());
        String path = to + r.path().substring(from.length());
        moved.put(path, new Recorded(path, r.kind(), r.size(), r.grows()));
      }
    }
    entries.putAll(moved);
    save();
  }

  /** Forgets {@code relative} and everything under it, once removed. */
  @Override
  public synchronized void removed(String relative) throws IOException {
    if (entries.keySet().removeIf(p -> p.equals(relative) || p.startsWith(relative + "/"))) {
      save();
    }
  }

  /**
   * A new manifest of run {@code run} in {@code root} naming the entries of {@code staying} that bitopk wrote
   * there and that stay (logs of a start that failed, the files of a run written before manifests existed),
   * written now (replacing any earlier one).
   */
  static RunManifest naming(FileSystem fs, Path root, String run, List<Path> staying) throws IOException {
    RunManifest manifest = new RunManifest(fs, root, run);
    for (Path path : staying) {
      String relative = manifest.relative(path);
      DirectoryEntries.Entry e = DirectoryEntries.at(fs, path);
      if (relative != null && !relative.isEmpty() && e != null && !relative.equals(RunLease.FILE)
          && !SideFiles.isSideFile(e.name())) {
        manifest.entries.put(relative, new Recorded(relative, e.isDirectory() ? DIRECTORY : REGULAR,
            e.isDirectory() ? 0 : e.size(), relative.startsWith(RunDirectory.METRICS + "/")
            || relative.startsWith(RunDirectory.LOGS + "/")));
      }
    }
    manifest.save();
    return manifest;
  }

  /** {@code path} relative to the run directory, "" for the directory itself, null when outside it. */
  @Override
  public @Nullable String relative(Path path) {
    String rootPath = root.toUri().getPath();
    String p = fs.makeQualified(path).toUri().getPath();
    if (p.equals(rootPath)) {
      return "";
    }
    String prefix = rootPath.endsWith("/") ? rootPath : rootPath + "/";
    return p.startsWith(prefix) ? p.substring(prefix.length()) : null;
  }

  private void save() throws IOException {
    try {
      beforeChange.run();
    } catch (LeaseLostException lost) {
      // the directory is another run's now: its manifest is never overwritten (this run stops at its next check)
      return;
    }
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT);
    node.put("run", run);
    ArrayNode list = node.putArray("entries");
    for (Recorded r : entries.values()) {
      ObjectNode e = list.addObject().put("path", r.path()).put("kind", r.kind());
      if (r.kind().equals(REGULAR)) {
        e.put("size", r.size());
        if (r.grows()) {
          e.put("grows", true);
        }
      }
    }
    byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(node);
    try {
      AtomicFiles.write(fs, new Path(root, FILE), out -> out.write(bytes));
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
  }

  /** The names a manifest's own writes use: the manifest and its temporary files. */
  static boolean isManifestFile(String name) {
    return name.equals(FILE) || name.startsWith(AtomicFiles.TEMPORARY_PREFIX + FILE + "-");
  }

  /** Paths of recorded entries, deepest first: the order to remove them in. */
  synchronized List<String> deepestFirst() {
    List<String> paths = new ArrayList<>(entries.keySet());
    paths.sort((a, b) -> b.compareTo(a));
    return paths;
  }
}
