package org.bitopk.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.bitopk.job.ExitCode;
import org.bitopk.job.run.StopRequests;
import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM end the job with one line on the console and exit code 130 or 143 (0 when the
 * run had finished). Once a command has begun writing ({@link #deferToMainThread}), the signal only requests
 * the stop: the main thread honours it at its next safe point ({@link #stopIfRequested}, between rounds, never
 * inside a write) and writes the line from what the directory then really holds, so its advice can be
 * followed literally. Before that, nothing is being written and the job ends at once, its line saying to run the
 * same command again.
 *
 * <p>Installed by the command-line entry point only. A second signal halts at once.
 */
public final class Interruption {
  private static final AtomicReference<Signal> REQUESTED = new AtomicReference<>();
  private static volatile boolean deferred;
  private static volatile boolean exiting;
  /** Hurries the main thread to its next safe point (cancels Spark's running jobs). */
  private static volatile Runnable hurry = () -> { };
  private static volatile PrintStream console;

  /** These requests, for the commands below the command line (grids), which cannot see this class. */
  public static final StopRequests REQUESTS = new StopRequests() {
    @Override
    public void deferTo(Runnable onRequest) {
      deferToMainThread(onRequest);
    }

    @Override
    public void stopIfRequested() {
      Interruption.stopIfRequested();
    }

    @Override
    public boolean requested() {
      return Interruption.requested();
    }

    @Override
    public int report(PrintWriter err, String where, boolean finished) {
      return Interruption.report(err, where, finished);
    }
  };

  private Interruption() {}

  /**
   * Handles SIGINT and SIGTERM from now on; the line goes to {@code consoleErr}. Installed first thing: a signal
   * the JVM's default handling met would end the job without a line.
   */
  public static void install(PrintStream consoleErr) {
    console = consoleErr;
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal.handle(new Signal(name), Interruption::onSignal);
      } catch (IllegalArgumentException | UnsupportedOperationException unavailable) {
        // the JVM reserves the signal (-Xrs): its default handling stays
      }
    }
  }

  /** The line of a signal goes to {@code consoleErr} from now on (once the console is separated from the log). */
  public static void printTo(PrintStream consoleErr) {
    console = consoleErr;
  }

  /**
   * From now on a signal only requests the stop, which the main thread carries out at its next
   * {@link #stopIfRequested}; {@code onRequest} is run by the signal's thread to get there sooner.
   */
  public static void deferToMainThread(Runnable onRequest) {
    hurry = onRequest;
    deferred = true;
  }

  /** Throws {@link Stopped} when a signal asked to stop: call where stopping leaves nothing half written. */
  public static void stopIfRequested() {
    Signal signal = REQUESTED.get();
    if (signal != null && deferred) {
      throw new Stopped("interrupted by SIG" + signal.getName());
    }
  }

  /** True once a signal was received. */
  public static boolean requested() {
    return REQUESTED.get() != null;
  }

  /** True when the signal's own thread printed the line and is exiting: the command prints nothing more. */
  public static boolean exiting() {
    return exiting;
  }

  /**
   * Prints the interruption line, "interrupted by SIGxxx" and {@code where}, and returns the exit code: 0 when
   * {@code finished} (the run completed after all), else 128 + the signal's number.
   */
  public static int report(PrintWriter err, String where, boolean finished) {
    Signal signal = Optional.ofNullable(REQUESTED.get()).orElseThrow(() -> new IllegalStateException("no signal"));
    err.println("bitopk: interrupted by SIG" + signal.getName() + where);
    err.flush();
    return finished ? ExitCode.OK : 128 + signal.getNumber();
  }

  private static void onSignal(Signal signal) {
    int code = 128 + signal.getNumber();
    if (!REQUESTED.compareAndSet(null, signal)) {
      Runtime.getRuntime().halt(code);
    }
    if (deferred) {
      try {
        hurry.run();
      } catch (RuntimeException e) {
        // the main thread still stops at its next safe point
      }
      return;
    }
    exiting = true;
    PrintStream out = console;
    if (out != null) {
      out.println("bitopk: interrupted by SIG" + signal.getName() + " before anything was written: run the same "
          + "command again");
      out.flush();
    }
    System.exit(code);
  }

  /** Thrown at a safe point after a signal: the run stops there, everything written so far complete. */
  public static final class Stopped extends RuntimeException {
    Stopped(String message) {
      super(message);
    }
  }
}
