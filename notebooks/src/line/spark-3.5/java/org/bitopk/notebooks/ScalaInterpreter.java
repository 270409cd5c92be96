package org.bitopk.notebooks;

import java.io.PrintWriter;
import scala.tools.nsc.Settings;
import scala.tools.nsc.interpreter.IMain;

/**
 * The Scala interpreter of the Spark 3.5 line (Scala 2.12), as Zeppelin 0.10's Spark interpreter starts it: IMain
 * writing to the paragraph's output, initialised before the first paragraph. The Spark 4 line's copy of this file
 * (notebooks/src/line/spark-4) starts Scala 2.13's.
 */
final class ScalaInterpreter {
  private ScalaInterpreter() {}

  static IMain start(Settings settings, PrintWriter output) {
    IMain intp = new IMain(settings, output);
    intp.initializeSynchronous();
    return intp;
  }
}
