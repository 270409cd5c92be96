package org.bitopk.job;

/**
 * The job's exit codes, one meaning each, so that scripts can tell "fix the command" from "the run failed"
 * from "someone stopped it" without parsing messages. Every non-zero code comes with exactly one
 * {@code bitopk: ...} line on stderr.
 */
public final class ExitCode {
  /** Done: the run finished ({@code _SUCCESS} written), or help/version printed. */
  public static final int OK = 0;
  /**
   * The run started and failed: Spark could not reach or keep the master, a task or executor failure, the
   * training diverged, an I/O failure such as a full disk, or a bug (the log file has the trace).
   */
  public static final int FAILURE = 1;
  /**
   * The command cannot run as given; nothing was started and nothing written: a bad flag or value, a bad
   * config file, missing or malformed data, settings that do not fit together or do not apply, an output
   * directory that is not usable (finished or unfinished run, not a run, in use by another run, not
   * writable), a malformed master URL or an unknown master host, a machine that cannot run the job (too few file
   * descriptors, ND4J's native libraries not loadable).
   */
  public static final int BAD_INPUT = 2;
  /** Interrupted by SIGINT (Ctrl-C): 128 + 2, as shells report it. Checkpoints are kept. */
  public static final int INTERRUPTED = 130;
  /** Terminated by SIGTERM: 128 + 15. Checkpoints are kept. */
  public static final int TERMINATED = 143;

  private ExitCode() {}
}
