package org.bitopk.job.output;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Whether a run may start in, resume in or replace a directory, decided from what bitopk wrote there
 * ({@link RunContents}): a directory holding anything bitopk did not write is never written into nor cleared,
 * with or without {@code --overwrite}.
 */
public final class RunDirectoryCheck {
  private static final int ENTRIES_NAMED = 5;

  /** What a directory holds, as far as starting a run in it is concerned. */
  public enum Kind {
    /** Does not exist yet. */
    ABSENT,
    /** Exists and holds nothing but bitopk's logs, lease or temporary files (of a start that failed early). */
    EMPTY,
    /** Holds a finished run ({@code _SUCCESS}) and nothing else. */
    FINISHED,
    /** Holds a run without {@code _SUCCESS} (running, killed or failed) and nothing else. */
    UNFINISHED,
    /** Holds entries bitopk did not write: not ours to write into or to clear. */
    NOT_A_RUN,
    /** Is a file. */
    NOT_A_DIRECTORY
  }

  /**
   * The kind, the number of checkpoint files, whether a run's config.json is there, and the entries bitopk did
   * not write (for messages).
   */
  public record State(Kind kind, int checkpoints, boolean hasRunConfig, List<String> foreign, List<String> changed) {
    public State {
      foreign = List.copyOf(foreign);
      changed = List.copyOf(changed);
    }
  }

  private RunDirectoryCheck() {}

  /** Looks at {@code path} without changing anything. */
  public static State inspect(FileSystem fs, Path path) throws IOException {
    FileStatus status;
    try {
      status = fs.getFileStatus(path);
    } catch (FileNotFoundException absent) {
      return new State(Kind.ABSENT, 0, false, List.of(), List.of());
    }
    if (!status.isDirectory()) {
      return new State(Kind.NOT_A_DIRECTORY, 0, false, List.of(), List.of());
    }
    RunContents contents = RunContents.of(fs, path);
    Kind kind;
    if (!contents.foreign().isEmpty()) {
      kind = Kind.NOT_A_RUN;
    } else if (!contents.recordsRun()) {
      kind = Kind.EMPTY;
    } else if (contents.finished()) {
      kind = Kind.FINISHED;
    } else {
      kind = Kind.UNFINISHED;
    }
    return new State(kind, contents.checkpoints(), contents.hasRunConfig(), contents.foreign(), contents.changed());
  }

  /**
   * Refuses a directory a run may not write into: one leased by a live run; a file; a finished run (unless
   * {@code overwrite}); an unfinished run (unless {@code overwrite} or {@code resume}); a directory holding
   * anything bitopk did not write (always: {@code --overwrite} only removes what bitopk wrote). For
   * {@code resume} the directory must hold an unfinished run.
   *
   * @return the state found
   * @throws OutputDirectoryException naming the directory and what to do instead
   */
  public static State requireUsable(FileSystem fs, Path path, boolean overwrite, boolean resume) throws IOException {
    String flag = resume ? "--resume" : "--output";
    Optional<Path> enclosing = OutputPathProblems.enclosingRun(fs, path);
    if (enclosing.isPresent()) {
      throw new OutputDirectoryException(flag + " " + path + " is inside the run directory " + enclosing.get()
          + ": a run's directory holds only that run's files; choose a directory outside it");
    }
    State state = inspect(fs, path);
    if (state.kind() != Kind.ABSENT && state.kind() != Kind.NOT_A_DIRECTORY
        && fs.exists(new Path(path, RunLease.FILE)) && RunLease.staleness(fs, path) == null) {
      String holder = RunLease.holder(fs, path).map(h -> h.describe(Instant.now()))
          .orElse("another run (its lease file is being written)");
      throw new OutputDirectoryException(flag + " " + path + " is in use by " + holder + ": wait for it to end "
          + "or choose another directory (a lease not refreshed for " + RunLease.STALE_AFTER.toSeconds()
          + " s is taken over; lease file " + new Path(path, RunLease.FILE) + ")");
    }
    if (state.kind() == Kind.NOT_A_RUN && state.hasRunConfig()) {
      throw new OutputDirectoryException(flag + " " + path + " holds a run and entries bitopk did not write ("
          + abbreviate(state.foreign()) + "): move them out of the directory" + (resume ? " to resume the run"
          : " or choose another directory (--overwrite only removes what bitopk wrote)"));
    }
    if (overwrite && !state.changed().isEmpty()) {
      throw new OutputDirectoryException(flag + " " + path + " holds files of its run changed since the run wrote "
          + "them (" + abbreviate(state.changed()) + "): move them out of the directory or choose another "
          + "directory (--overwrite only removes what bitopk wrote, as it wrote it)");
    }
    if (resume) {
      switch (state.kind()) {
        case ABSENT -> throw new OutputDirectoryException("--resume: " + path + " does not exist");
        case NOT_A_DIRECTORY -> throw new OutputDirectoryException("--resume: " + path + " is a file, expected a "
            + "run directory");
        case EMPTY, NOT_A_RUN -> throw new OutputDirectoryException("--resume: " + path
            + " is not a run directory (no config.json of a run" + (state.foreign().isEmpty() ? ""
            : "; found " + abbreviate(state.foreign())) + ")");
        case FINISHED -> throw new OutputDirectoryException("--resume: " + path
            + " holds a finished run (_SUCCESS): nothing to resume");
        case UNFINISHED -> {
          if (!state.hasRunConfig()) {
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
          + "(found " + abbreviate(state.foreign()) + "): choose a new or empty directory"
          + (overwrite ? " (--overwrite only replaces runs)" : ""));
      default -> {
        // ABSENT, EMPTY: a new run may start here
      }
    }
    return state;
  }

  /**
   * Removes an earlier run for {@code --overwrite}, after its lease is taken: exactly the entries bitopk wrote
   * (checkpoints and logs included), never the lease file, and nothing at all when the directory holds
   * anything else.
   *
   * @throws OutputDirectoryException when the directory holds entries bitopk did not write
   */
  public static void clear(FileSystem fs, Path path) throws IOException {
    RunContents contents = RunContents.of(fs, path);
    List<String> refused = new java.util.ArrayList<>(contents.foreign());
    refused.addAll(contents.changed());
    if (!refused.isEmpty()) {
      throw new OutputDirectoryException("--output " + path + " now holds entries bitopk did not write ("
          + abbreviate(refused) + "): nothing was removed; move them out of the directory");
    }
    for (Path entry : contents.own()) {
      if (!entry.getName().equals(RunLease.FILE) && !fs.delete(entry, false) && fs.exists(entry)) {
        throw new IOException("cannot delete " + entry);
      }
    }
  }

  private static String abbreviate(List<String> entries) {
    List<String> shown = entries.size() <= ENTRIES_NAMED ? entries : entries.subList(0, ENTRIES_NAMED);
    return String.join(", ", shown) + (entries.size() > ENTRIES_NAMED ? ", ..." : "");
  }
}
