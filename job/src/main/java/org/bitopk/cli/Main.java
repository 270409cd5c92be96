package org.bitopk.cli;

import java.io.PrintWriter;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.ExitCode;

/**
 * Entry point: {@code train} (the default when no command is given), {@code experiment}, {@code report},
 * {@code evaluate-compressors}, {@code reproduction} and {@code time-to-accuracy} (see {@link Commands}). Every
 * failure is one {@code bitopk: ...} line on stderr with an exit code of {@link ExitCode}: 2 for input that cannot
 * be used (nothing was started or written), 1 for a run that failed, 130/143 when interrupted.
 *
 * <p>This class refers to nothing but {@link Interruption} and {@link Commands}: the JVM loads and checks an entry
 * point's referenced classes before {@code main} runs, and finding picocli's and Spark's among hundreds of jars
 * takes a loaded machine up to a second, in which a Ctrl-C would end the JVM without a line.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    Interruption.install(System.err);
    Commands.run(args);
  }

  /** Runs the command line and returns the exit code (no System.exit): for tests and embedding. */
  public static int execute(String[] args, JavaSparkContext existing, PrintWriter out, PrintWriter err) {
    return Commands.execute(args, existing, out, err);
  }
}
