package org.bitopk.cli;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM end the job with one line on the console and exit code 130 or 143. The line
 * says where the run stands (its directory, the checkpoints kept, how to continue); the shutdown then runs
 * as usual (Spark stops, the output directory's lease is released), with everything else it prints going to
 * the log. Nothing is deleted: an interrupted run is an unfinished run, resumable from its checkpoints.
 *
 * <p>Installed by the command-line entry point only. A second signal while shutting down halts at once.
 */
public final class Interruption {
  private static final AtomicBoolean FIRED = new AtomicBoolean();
  private static volatile Supplier<String> status = () -> "";
  private static volatile PrintStream console;

  private Interruption() {}

  /** Handles SIGINT and SIGTERM from now on; the line goes to {@code consoleErr}. */
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

  /** What the interruption line adds after "interrupted by SIGxxx": set by the running command. */
  public static void status(Supplier<String> describe) {
    status = describe;
  }

  /** True once a signal was received: the command then prints nothing more. */
  public static boolean fired() {
    return FIRED.get();
  }

  private static void onSignal(Signal signal) {
    int code = 128 + signal.getNumber();
    if (!FIRED.compareAndSet(false, true)) {
      Runtime.getRuntime().halt(code);
    }
    String where;
    try {
      where = status.get();
    } catch (RuntimeException | Error e) {
      where = "";
    }
    PrintStream out = console;
    if (out != null) {
      out.println("bitopk: interrupted by SIG" + signal.getName() + where);
      out.flush();
    }
    System.exit(code);
  }
}
