package org.bitopk.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.hadoop.fs.FSError;
import org.bitopk.job.BadInputException;
import org.bitopk.job.ExitCode;
import org.bitopk.job.RunFailedException;
import org.bitopk.job.engine.TrainingDivergedException;
import org.bitopk.job.output.LeaseLostException;
import org.bitopk.job.output.OutputDirectoryException;

/**
 * Turns whatever stopped a command into its one line and exit code (see {@link ExitCode}). Failures whose
 * message says it all (bad input, divergence, a lost lease, a full disk) are printed as they are; anything
 * else is printed with where its full trace is (the log file, or {@code --verbose}).
 */
final class Failures {
  /** The line (without the {@code bitopk: } prefix) and the exit code. */
  record Outcome(int code, String line, boolean explained) {}

  private Failures() {}

  static Outcome classify(Throwable failure) {
    Optional<String> natives = NativeLibraries.explain(failure);
    if (natives.isPresent()) {
      return new Outcome(ExitCode.BAD_INPUT, natives.get(), true);
    }
    if (isBadInput(failure)) {
      return new Outcome(ExitCode.BAD_INPUT, firstLine(failure), true);
    }
    if (failure instanceof TrainingDivergedException || failure instanceof RunFailedException
        || failure instanceof LeaseLostException) {
      return new Outcome(ExitCode.FAILURE, firstLine(failure), true);
    }
    Throwable io = ioCause(failure);
    if (io != null) {
      String top = firstLine(failure);
      String root = firstLine(io instanceof FSError && io.getCause() != null ? io.getCause() : io);
      return new Outcome(ExitCode.FAILURE, top.contains(root) ? top : top + ": " + root, true);
    }
    return new Outcome(ExitCode.FAILURE, firstLine(failure), false);
  }

  /**
   * Prints the failure's line (and, with {@code verbose}, its trace first) to {@code err}; returns the exit
   * code. Unexplained failures point at the log file that holds their trace.
   */
  static int report(Throwable failure, PrintWriter err, Optional<String> log, boolean verbose) {
    Outcome outcome = classify(failure);
    if (verbose) {
      failure.printStackTrace(err);
    }
    String line = outcome.line();
    if (!outcome.explained()) {
      line += log.map(l -> " (the full trace is in " + l + ")").orElse(verbose ? "" : " (--verbose prints the trace)");
    }
    err.println("bitopk: " + line);
    err.flush();
    return outcome.code();
  }

  static boolean isBadInput(Throwable failure) {
    if (failure instanceof BadInputException || failure instanceof OutputDirectoryException) {
      return true;
    }
    return failure instanceof IllegalArgumentException && failure.getMessage() != null
        && failure.getMessage().startsWith("--");
  }

  /** The I/O failure behind {@code failure}, if it is one. */
  private static Throwable ioCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof IOException || t instanceof UncheckedIOException || t instanceof FSError) {
        Throwable deepest = t;
        for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
          if (c instanceof IOException || c instanceof FSError) {
            deepest = c;
          }
        }
        return deepest;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  static String firstLine(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isBlank()) {
      return t.getClass().getSimpleName();
    }
    return message.strip().lines().findFirst().orElse(message);
  }
}
