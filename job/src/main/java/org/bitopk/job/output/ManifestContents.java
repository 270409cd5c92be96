package org.bitopk.job.output;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.output.DirectoryEntries.Entry;

/**
 * What a directory with a {@link RunManifest} holds: its run's entries are exactly those the manifest names,
 * of the kind recorded; every other entry (a name the manifest lacks, a link, a FIFO) is foreign, named by its
 * path in the directory. The run's files whose size is no longer the recorded one are listed as changed. Checksum side files go with their file; the
 * lease, the manifest and their temporary files are the directory's bookkeeping.
 */
final class ManifestContents {
  private static final Pattern CHECKPOINT = Pattern.compile(RunContents.CHECKPOINTS
      + "/checkpoint-\\d{10}\\.bin");
  /** Entries that are the directory's bookkeeping rather than a run's record. */
  private static final Set<String> BOOKKEEPING = Set.of(RunLease.FILE);

  private final FileSystem fs;
  private final Path dir;
  private final RunManifest manifest;
  private final List<Path> own = new ArrayList<>();
  private final List<String> foreign = new ArrayList<>();
  private final List<String> changed = new ArrayList<>();
  private boolean recordsRun;
  private int checkpoints;

  private ManifestContents(FileSystem fs, Path dir, RunManifest manifest) {
    this.fs = fs;
    this.dir = dir;
    this.manifest = manifest;
  }

  /** Reads {@code dir} against its {@code manifest} without changing anything. */
  static ManifestContents of(FileSystem fs, Path dir, RunManifest manifest) throws IOException {
    ManifestContents scan = new ManifestContents(fs, dir, manifest);
    scan.walk(dir, "");
    scan.foreign.sort(null);
    scan.changed.sort(null);
    return scan;
  }

  /** True when the entry {@code relative} in the directory is the run's. */
  boolean owns(String relative) {
    return own.contains(fs.makeQualified(new Path(dir, relative)));
  }

  /** The run's entries, children before their directory. */
  List<Path> own() {
    return own;
  }

  /** The entries the run did not write (paths in the directory, sorted). */
  List<String> foreign() {
    return foreign;
  }

  /** The run's files whose size changed since it wrote them (paths in the directory, sorted). */
  List<String> changed() {
    return changed;
  }

  /** The run's checkpoint files. */
  int checkpoints() {
    return checkpoints;
  }

  /** True when the run recorded something beyond its logs and temporary files. */
  boolean recordsRun() {
    return recordsRun;
  }

  /** Adds {@code dir}'s entries ({@code prefix}: its path in the run directory), children before parents. */
  private void walk(Path dir, String prefix) throws IOException {
    List<Entry> entries = DirectoryEntries.list(fs, dir);
    Set<String> names = entries.stream().map(Entry::name).collect(Collectors.toSet());
    for (Entry entry : entries) {
      String name = entry.name();
      String relative = prefix + name;
      if (prefix.isEmpty() && entry.isFile() && (BOOKKEEPING.contains(name) || RunManifest.isManifestFile(name)
          || name.startsWith(AtomicFiles.TEMPORARY_PREFIX + RunLease.FILE + "-"))) {
        continue;   // never removed with the run: the lease is released, the manifest replaced
      }
      if (SideFiles.isSideFile(name) && entry.isFile()) {
        String main = SideFiles.fileOf(name);
        boolean mine = !names.contains(main) || manifest.entry(prefix + main).isPresent()
            && entries.stream().anyMatch(e -> e.name().equals(main) && manifest.isKindRecorded(prefix + main, e));
        account(entry, relative, mine);
        continue;
      }
      boolean mine = manifest.isKindRecorded(relative, entry);
      if (mine && !manifest.matches(relative, entry)) {
        changed.add(relative);   // the run's, edited since: resumed over, never removed
      }
      if (mine && entry.isDirectory()) {
        walk(entry.path(), relative + "/");
      }
      account(entry, relative, mine);
      if (mine && entry.isFile()) {
        checkpoints += CHECKPOINT.matcher(relative).matches() ? 1 : 0;
        recordsRun |= !relative.startsWith(RunDirectory.LOGS + "/") && !name.startsWith(AtomicFiles.TEMPORARY_PREFIX);
      }
    }
  }

  private void account(Entry entry, String relative, boolean mine) {
    if (mine) {
      own.add(fs.makeQualified(entry.path()));
    } else {
      foreign.add(entry.kind().nameInMessages(relative));
    }
  }
}
