package org.bitopk.job.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.EpochRecord;
import org.bitopk.job.engine.IterationRecord;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.engine.RunSummary;

/**
 * A run's output directory on any Hadoop FileSystem: config.json, metrics/*.jsonl, the model, summary.txt and
 * {@code _SUCCESS} last. As a {@link RunListener} it appends one JSON line per iteration and per epoch.
 *
 * <p>Who may write here is decided before (see {@link #requireUsable} and {@link RunLease}); final files are
 * written atomically ({@link AtomicFiles}), so a failure leaves either the complete file or none.
 */
public final class RunDirectory implements RunListener, AutoCloseable {
  public static final String SUCCESS = "_SUCCESS";
  public static final String CONFIG = "config.json";
  public static final String METRICS = "metrics";
  public static final String ITERATIONS = "metrics/iterations.jsonl";
  public static final String EPOCHS = "metrics/epochs.jsonl";
  /** The driver's log files of each start of the run (see DriverLog). */
  public static final String LOGS = "logs";
  /** The compensated vectors of {@code --capture-vectors} (written by the capture package). */
  public static final String CAPTURES = "captures";
  /** What marks a directory as a run, finished or not. */
  private static final Set<String> RUN_MARKERS = Set.of(CONFIG, METRICS, "checkpoints", CAPTURES);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileSystem fs;
  private final Path path;
  private Writer iterations;
  private Writer epochs;
  private FSDataOutputStream iterationsOut;
  private FSDataOutputStream epochsOut;
  private long iterationLines;
  private Continuation continuation = new Continuation(0, 0, 0, List.of());

  /** What a directory holds, as far as starting a run in it is concerned. */
  public enum Kind {
    /** Does not exist yet. */
    ABSENT,
    /** Exists and holds nothing but logs (of a start that failed before the run began). */
    EMPTY,
    /** Holds a finished run ({@code _SUCCESS}). */
    FINISHED,
    /** Holds a run without {@code _SUCCESS}: running, killed or failed. */
    UNFINISHED,
    /** Holds other files: not ours to write into. */
    NOT_A_RUN,
    /** Is a file. */
    NOT_A_DIRECTORY
  }

  /** The kind, the number of checkpoint files and the entries found (for messages). */
  public record State(Kind kind, int checkpoints, List<String> entries) {}

  /** The metric lines a resumed run continues from, and what had to be dropped or is missing. */
  public record Continuation(int keptIterations, int foreignLines, int tornLines, List<String> missingIterations) {
    /** True when the kept lines cover every round before the checkpoint exactly once. */
    public boolean complete() {
      return missingIterations.isEmpty();
    }
  }

  private RunDirectory(FileSystem fs, Path path) {
    this.fs = fs;
    this.path = path;
  }

  /** Looks at {@code path} without changing anything. */
  public static State inspect(FileSystem fs, Path path) throws IOException {
    FileStatus status;
    try {
      status = fs.getFileStatus(path);
    } catch (FileNotFoundException absent) {
      return new State(Kind.ABSENT, 0, List.of());
    }
    if (!status.isDirectory()) {
      return new State(Kind.NOT_A_DIRECTORY, 0, List.of());
    }
    List<String> entries = new ArrayList<>();
    for (FileStatus entry : fs.listStatus(path)) {
      String name = entry.getPath().getName();
      boolean bookkeeping = name.equals(RunLease.FILE) || (name.equals(LOGS) && entry.isDirectory())
          || (name.startsWith(".") && name.endsWith(".crc"));
      if (!bookkeeping) {
        entries.add(name);
      }
    }
    entries.sort(null);
    int checkpoints = countCheckpoints(fs, new Path(path, "checkpoints"));
    Kind kind;
    if (entries.isEmpty()) {
      kind = Kind.EMPTY;
    } else if (entries.contains(SUCCESS)) {
      kind = Kind.FINISHED;
    } else if (entries.stream().anyMatch(RUN_MARKERS::contains)) {
      kind = Kind.UNFINISHED;
    } else {
      kind = Kind.NOT_A_RUN;
    }
    return new State(kind, checkpoints, List.copyOf(entries));
  }

  /**
   * Refuses a directory a run may not write into: one leased by a live run; a file; a finished run (unless
   * {@code overwrite}); an unfinished run (unless {@code overwrite} or {@code resume}); a non-empty
   * directory that is not a run (always: {@code --overwrite} only replaces runs). For {@code resume} the
   * directory must hold an unfinished run.
   *
   * @return the state found
   * @throws OutputDirectoryException naming the directory and what to do instead
   */
  public static State requireUsable(FileSystem fs, Path path, boolean overwrite, boolean resume) throws IOException {
    State state = inspect(fs, path);
    String flag = resume ? "--resume" : "--output";
    if (state.kind() != Kind.ABSENT && state.kind() != Kind.NOT_A_DIRECTORY
        && fs.exists(new Path(path, RunLease.FILE)) && RunLease.staleness(fs, path) == null) {
      String holder = RunLease.holder(fs, path).map(h -> h.describe(java.time.Instant.now()))
          .orElse("another run (its lease file is being written)");
      throw new OutputDirectoryException(flag + " " + path + " is in use by " + holder + ": wait for it to end "
          + "or choose another directory (a lease not refreshed for " + RunLease.STALE_AFTER.toSeconds()
          + " s is taken over; lease file " + new Path(path, RunLease.FILE) + ")");
    }
    if (resume) {
      switch (state.kind()) {
        case ABSENT -> throw new OutputDirectoryException("--resume: " + path + " does not exist");
        case NOT_A_DIRECTORY -> throw new OutputDirectoryException("--resume: " + path + " is a file, expected a "
            + "run directory");
        case EMPTY, NOT_A_RUN -> throw new OutputDirectoryException("--resume: " + path
            + " is not a run directory (no config.json)");
        case FINISHED -> throw new OutputDirectoryException("--resume: " + path
            + " holds a finished run (_SUCCESS): nothing to resume");
        case UNFINISHED -> {
          if (!state.entries().contains(CONFIG)) {
            throw new OutputDirectoryException("--resume: " + path + " is not a run directory (no config.json)");
          }
        }
        default -> throw new IllegalStateException(state.kind().toString());
      }
      return state;
    }
    switch (state.kind()) {
      case NOT_A_DIRECTORY -> throw new OutputDirectoryException("--output " + path
          + " exists and is not a directory");
      case FINISHED -> {
        if (!overwrite) {
          throw new OutputDirectoryException("--output " + path + " already holds a finished run (_SUCCESS): "
              + "choose another directory or pass --overwrite");
        }
      }
      case UNFINISHED -> {
        if (!overwrite) {
          String what = state.checkpoints() > 0
              ? "an unfinished run (" + state.checkpoints() + " checkpoint(s), no _SUCCESS): continue it with "
                  + "--resume " + path + ", or replace it with --overwrite"
              : "an unfinished run without checkpoints (no _SUCCESS; it cannot be resumed): replace it with "
                  + "--overwrite or choose another directory";
          throw new OutputDirectoryException("--output " + path + " holds " + what);
        }
      }
      case NOT_A_RUN -> throw new OutputDirectoryException("--output " + path + " is not empty and holds no run "
          + "(found " + abbreviate(state.entries()) + "): choose a new or empty directory"
          + (overwrite ? " (--overwrite only replaces runs)" : ""));
      default -> {
        // ABSENT, EMPTY: a new run may start here
      }
    }
    return state;
  }

  /**
   * Removes everything of an earlier run (checkpoints and logs included) except the lease file: for
   * {@code --overwrite}, after the lease is taken.
   */
  public static void clear(FileSystem fs, Path path) throws IOException {
    for (FileStatus entry : fs.listStatus(path)) {
      if (!entry.getPath().getName().equals(RunLease.FILE) && !fs.delete(entry.getPath(), true)) {
        throw new IOException("cannot delete " + entry.getPath());
      }
    }
  }

  /** Opens the metric files of a new run (the directory exists: its lease was taken). */
  public static RunDirectory start(FileSystem fs, Path path) throws IOException {
    RunDirectory dir = new RunDirectory(fs, path);
    boolean opened = false;
    try {
      fs.mkdirs(new Path(path, METRICS));
      dir.iterations = dir.writer(ITERATIONS);
      dir.epochs = dir.writer(EPOCHS);
      opened = true;
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    } finally {
      if (!opened) {
        dir.discardIfNothingRecorded();
      }
    }
    return dir;
  }

  /**
   * Reopens the directory of an unfinished run to continue run {@code runId} at round {@code fromIteration}:
   * keeps its metric lines of earlier rounds (iterations &lt; fromIteration, epochs ending at or before it),
   * each once, and drops the rest (rounds the resumed run writes again, torn lines, lines of another run).
   * Use {@link #continuation()} to learn what was dropped and which earlier rounds have no line.
   */
  public static RunDirectory resume(FileSystem fs, Path path, String runId, int fromIteration) throws IOException {
    RunDirectory dir = new RunDirectory(fs, path);
    try {
      fs.mkdirs(new Path(path, METRICS));
      BitSet seen = new BitSet(fromIteration);
      int[] iterationCounts = new int[3];   // kept, of another run, torn
      dir.iterations = dir.keepLines(ITERATIONS, runId, iterationCounts, line -> {
        long t = line.path("iteration").asLong(-1);
        if (t < 0 || t >= fromIteration || seen.get((int) t)) {
          return false;
        }
        seen.set((int) t);
        return true;
      });
      dir.iterationLines = iterationCounts[0];
      Set<Long> epochsSeen = new HashSet<>();
      int[] epochCounts = new int[3];
      dir.epochs = dir.keepLines(EPOCHS, runId, epochCounts, line -> {
        long t = line.path("iteration").asLong(-1);
        return t >= 0 && t <= fromIteration && epochsSeen.add(line.path("epoch").asLong());
      });
      dir.continuation = new Continuation(seen.cardinality(), iterationCounts[1] + epochCounts[1],
          iterationCounts[2] + epochCounts[2], ranges(seen, fromIteration));
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
    return dir;
  }

  /** For a resumed run: what its metric lines were found to hold. */
  public Continuation continuation() {
    return continuation;
  }

  /**
   * Makes every metric line written so far durable and visible (before a checkpoint: a run resumed from it
   * must find all earlier lines): hflush on distributed file systems; on the local file system the lines
   * are written without Hadoop's checksum side file (see {@link #writer}), so a flush hands them to the OS.
   * Object stores publish a file only when it is closed: there the lines of an unfinished run may lag.
   */
  public void sync() {
    try {
      hflush(iterations, iterationsOut);
      hflush(epochs, epochsOut);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + e.getMessage(), e);
    } catch (FSError e) {
      IOException io = AtomicFiles.unwrap(e);
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + io.getMessage(), io);
    }
  }

  private static void hflush(Writer writer, FSDataOutputStream out) throws IOException {
    writer.flush();
    if (out != null) {
      out.hflush();
    }
  }

  /**
   * Rewrites a metrics file keeping the lines of run {@code runId} that pass {@code keep}; returns a writer
   * appending to it. {@code counts}: kept, lines of another run, torn lines (added to).
   */
  private Writer keepLines(String name, String runId, int[] counts,
      java.util.function.Predicate<JsonNode> keep) throws IOException {
    Path file = new Path(path, name);
    List<String> kept = new ArrayList<>();
    if (fs.exists(file)) {
      // A crash can leave a local file system's checksum side file behind its data: read the raw bytes (the
      // rewrite below makes both consistent again); torn lines are dropped anyway.
      FileSystem reader = fs instanceof ChecksumFileSystem checksummed ? checksummed.getRawFileSystem() : fs;
      try (BufferedReader in = new BufferedReader(new InputStreamReader(reader.open(file), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode node;
          try {
            node = JSON.readTree(line);
          } catch (JsonProcessingException torn) {
            counts[2]++;   // a line cut short by a crash: dropped, its round runs again
            continue;
          }
          if (node == null || !node.isObject()) {
            counts[2]++;
          } else if (!runId.equals(node.path("run").asText())) {
            counts[1]++;
          } else if (keep.test(node)) {
            kept.add(line);
            counts[0]++;
          }
        }
      }
    }
    // Replace the file atomically (temporary file + rename) so that a driver dying now still leaves the kept
    // lines, then keep appending to it.
    FileSystem target = fs instanceof ChecksumFileSystem c ? c.getRawFileSystem() : fs;
    if (target != fs) {
      fs.delete(((ChecksumFileSystem) fs).getChecksumFile(file), false);
    }
    Path temporary = AtomicFiles.temporaryFor(file);
    boolean replaced = false;
    try {
      try (Writer out = new BufferedWriter(new OutputStreamWriter(target.create(temporary, true), StandardCharsets.UTF_8))) {
        for (String line : kept) {
          out.write(line);
          out.write('\n');
        }
      }
      AtomicFiles.replace(target, temporary, file);
      replaced = true;
    } finally {
      if (!replaced) {
        AtomicFiles.deleteQuietly(target, temporary);
      }
    }
    FSDataOutputStream out;
    try {
      out = target.append(file);
    } catch (UnsupportedOperationException | IOException noAppend) {
      // object stores: rewrite (their files only appear when closed anyway)
      Writer writer = writer(name);
      for (String line : kept) {
        writer.write(line);
        writer.write('\n');
      }
      return writer;
    }
    if (name.equals(ITERATIONS)) {
      iterationsOut = out;
    } else {
      epochsOut = out;
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  /** "5-9", "12" for the rounds below {@code limit} that are not in {@code seen}. */
  private static List<String> ranges(BitSet seen, int limit) {
    List<String> out = new ArrayList<>();
    int from = seen.nextClearBit(0);
    while (from < limit) {
      int to = Math.min(seen.nextSetBit(from) < 0 ? limit : seen.nextSetBit(from), limit) - 1;
      out.add(from == to ? Integer.toString(from) : from + "-" + to);
      from = seen.nextClearBit(to + 1);
    }
    return out;
  }

  public FileSystem fileSystem() {
    return fs;
  }

  public Path path() {
    return path;
  }

  /** Iteration lines in the metrics so far (kept from before a resume, plus written). */
  public long iterationLines() {
    return iterationLines;
  }

  /** Writes config.json atomically. */
  public void writeConfig(Map<String, Object> config) throws IOException {
    AtomicFiles.write(fs, new Path(path, CONFIG),
        out -> JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValue(new NonClosing(out), config));
  }

  /** Writes a text file atomically. */
  public void writeText(String name, String text) throws IOException {
    AtomicFiles.write(fs, new Path(path, name), out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** Writes the empty {@code _SUCCESS} marker: call last, once every other file is complete. */
  public void markSuccess() throws IOException {
    close();
    try {
      fs.create(new Path(path, SUCCESS), true).close();
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
  }

  /**
   * After a failure of a new run that recorded no round: removes what it wrote (config.json, the empty metric
   * files), so the directory is as before and the same command can simply be run again. Logs stay.
   */
  public void discardIfNothingRecorded() {
    closeQuietly();
    if (iterationLines > 0) {
      return;
    }
    for (String name : List.of(CONFIG, METRICS, CAPTURES)) {
      try {
        fs.delete(new Path(path, name), true);
      } catch (IOException | RuntimeException | FSError e) {
        // best effort: what stays is an unfinished run, which the next start reports
      }
    }
  }

  @Override
  public void onIteration(IterationRecord record, DriverState state) {
    line(iterations, record);
    iterationLines++;
  }

  @Override
  public void onEpoch(EpochRecord record, DriverState state) {
    line(epochs, record);
    flush(iterations);
    flush(epochs);
  }

  @Override
  public void onFinish(RunSummary summary, DriverState state) {
    flush(iterations);
    flush(epochs);
  }

  @Override
  public void close() throws IOException {
    try {
      if (iterations != null) {
        Writer w = iterations;
        iterations = null;
        w.close();
      }
      if (epochs != null) {
        Writer w = epochs;
        epochs = null;
        w.close();
      }
    } catch (FSError e) {
      throw AtomicFiles.unwrap(e);
    }
  }

  /** Closes the metric files, ignoring failures (the run is failing already). */
  public void closeQuietly() {
    for (Writer w : new Writer[] {iterations, epochs}) {
      if (w != null) {
        try {
          w.close();
        } catch (IOException | RuntimeException | FSError e) {
          // already failing with a more useful message
        }
      }
    }
    iterations = null;
    epochs = null;
  }

  /**
   * A metrics file opened for writing. On the local file system it is written through the raw file system,
   * without a checksum side file: a checksummed stream keeps the last partial 512-byte chunk to itself until
   * closed, so lines could not be made durable mid-run (readers skip verification when no .crc exists).
   */
  private Writer writer(String name) throws IOException {
    Path file = new Path(path, name);
    FSDataOutputStream out;
    if (fs instanceof ChecksumFileSystem checksummed) {
      fs.delete(checksummed.getChecksumFile(file), false);
      out = checksummed.getRawFileSystem().create(file, true);
    } else {
      out = fs.create(file, true);
    }
    if (name.equals(ITERATIONS)) {
      iterationsOut = out;
    } else if (name.equals(EPOCHS)) {
      epochsOut = out;
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  private void line(Writer writer, Object record) {
    try {
      writer.write(JSON.writeValueAsString(record));
      writer.write('\n');
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + e.getMessage(), e);
    } catch (FSError e) {
      IOException io = AtomicFiles.unwrap(e);
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + io.getMessage(), io);
    }
  }

  private void flush(Writer writer) {
    try {
      writer.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + e.getMessage(), e);
    } catch (FSError e) {
      IOException io = AtomicFiles.unwrap(e);
      throw new UncheckedIOException("cannot write metrics into " + path + ": " + io.getMessage(), io);
    }
  }

  private static int countCheckpoints(FileSystem fs, Path checkpoints) throws IOException {
    try {
      int n = 0;
      for (FileStatus s : fs.listStatus(checkpoints)) {
        if (s.isFile() && s.getPath().getName().matches("checkpoint-\\d{10}\\.bin")) {
          n++;
        }
      }
      return n;
    } catch (FileNotFoundException none) {
      return 0;
    }
  }

  private static String abbreviate(List<String> entries) {
    List<String> shown = entries.size() <= 5 ? entries : entries.subList(0, 5);
    return String.join(", ", new TreeSet<>(shown)) + (entries.size() > 5 ? ", ..." : "");
  }

  /** Keeps Jackson from closing the stream that {@link AtomicFiles} closes (and checks) itself. */
  private static final class NonClosing extends java.io.FilterOutputStream {
    NonClosing(java.io.OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
