package org.bitopk.notebooks;

import java.io.PrintWriter;
import scala.tools.nsc.Settings;
import scala.tools.nsc.interpreter.IMain;
import scala.tools.nsc.interpreter.shell.ReplReporterImpl;

/**
 * The Scala interpreter of the Spark 4 line (Scala 2.13), as Zeppelin's Scala 2.13 Spark interpreter starts it:
 * IMain reports through a ReplReporter, and its compiler starts on the first use. The Spark 3.5 line's copy of this
 * file (notebooks/src/line/spark-3.5) starts Scala 2.12's.
 */
final class ScalaInterpreter {
  private ScalaInterpreter() {}

  static IMain start(Settings settings, PrintWriter output) {
    IMain intp = new IMain(settings, new ReplReporterImpl(settings, output));
    if (!intp.initializeCompiler()) {
      throw new IllegalStateException("the Scala " + scala.util.Properties.versionNumberString()
          + " compiler did not start");
    }
    return intp;
  }
}
