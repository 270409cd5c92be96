package org.bitopk.notebooks;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.apache.spark.sql.SparkSession;
import scala.Console$;
import scala.collection.JavaConverters;
import scala.runtime.AbstractFunction0;
import scala.tools.nsc.Settings;
import scala.tools.nsc.interpreter.IMain;
import scala.tools.nsc.interpreter.Results;

/**
 * Runs {@code %spark} paragraphs the way Zeppelin's Spark interpreter does, in the line's Scala (2.13 or 2.12,
 * {@link ScalaInterpreter}): one {@link IMain} per note with class-based wrappers ({@code -Yrepl-class-based}) compiled into the directory
 * Spark serves to executors ({@code spark.repl.class.outputDir}); {@code spark}, {@code sc},
 * {@code sqlContext} and {@code z} bound; the same four imports; each paragraph interpreted whole, with
 * {@code print("")} appended when the REPL finds it incomplete; {@code Console.out} captured as the
 * paragraph's output.
 */
final class ZeppelinScala implements AutoCloseable {
  /** What a paragraph printed and whether the REPL accepted and ran it. */
  record Outcome(boolean success, String output) {}

  private final IMain intp;
  private final ByteArrayOutputStream replOutput = new ByteArrayOutputStream();

  /** @param classDir the directory the SparkContext was created with as {@code spark.repl.class.outputDir} */
  ZeppelinScala(SparkSession spark, Object z, Path classDir) {
    Settings settings = new Settings();
    List<String> args = List.of("-Yrepl-class-based", "-Yrepl-outdir", classDir.toString(), "-classpath",
        String.join(File.pathSeparator, testClassPath()));
    settings.processArguments(JavaConverters.asScalaBuffer(args).toList(), true);
    intp = ScalaInterpreter.start(settings, new PrintWriter(replOutput, true));
    bind("spark", "org.apache.spark.sql.SparkSession", spark);
    bind("sc", "org.apache.spark.SparkContext", spark.sparkContext());
    bind("sqlContext", "org.apache.spark.sql.SQLContext", spark.sqlContext());
    bind("z", z.getClass().getName(), z);
    for (String line : List.of("import org.apache.spark.SparkContext._", "import spark.implicits._",
        "import spark.sql", "import org.apache.spark.sql.functions._", "print(\"\")")) {
      Outcome o = run(line);
      if (!o.success()) {
        throw new IllegalStateException("Zeppelin's start-up line " + line + " failed: " + o.output());
      }
    }
  }

  private void bind(String name, String type, Object value) {
    Results.Result r = intp.bind(name, type, value,
        JavaConverters.asScalaBuffer(List.of("@transient")).toList());
    if (r != Results.Success$.MODULE$) {
      throw new IllegalStateException("cannot bind " + name + ": " + replOutput);
    }
  }

  /** Interprets one paragraph's code (without its magic line). */
  Outcome run(String code) {
    replOutput.reset();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Results.Result result;
    PrintStream console = new PrintStream(printed, true, StandardCharsets.UTF_8);
    result = interpret(code, console);
    if (result == Results.Incomplete$.MODULE$) {
      result = interpret(code + "\nprint(\"\")", console);
    }
    console.flush();
    String output = printed.toString(StandardCharsets.UTF_8) + replOutput.toString(StandardCharsets.UTF_8);
    return new Outcome(result == Results.Success$.MODULE$, output);
  }

  private Results.Result interpret(String code, PrintStream console) {
    return Console$.MODULE$.withOut(console, new AbstractFunction0<Results.Result>() {
      @Override
      public Results.Result apply() {
        return intp.interpret(code);
      }
    });
  }

  /** The value of a term the paragraphs defined, e.g. {@code accuracy}. */
  Object valueOf(String term) {
    scala.Option<Object> value = intp.valueOfTerm(term);
    if (value.isEmpty()) {
      throw new IllegalStateException("the note defines no term " + term);
    }
    return value.get();
  }

  @Override
  public void close() {
    intp.close();
  }

  /**
   * The test's class path as a list of entries: surefire passes it in {@code surefire.test.class.path}
   * (the JVM's own class path is a manifest-only jar, whose Class-Path entries are expanded here too).
   */
  static List<String> testClassPath() {
    String raw = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Set<String> entries = new LinkedHashSet<>();
    for (String entry : raw.split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      entries.add(entry);
      if (entry.endsWith(".jar") && new File(entry).isFile()) {
        entries.addAll(manifestClassPath(new File(entry)));
      }
    }
    return new ArrayList<>(entries);
  }

  private static List<String> manifestClassPath(File jar) {
    List<String> out = new ArrayList<>();
    try (JarFile file = new JarFile(jar)) {
      Manifest manifest = file.getManifest();
      String classPath = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
      if (classPath != null) {
        for (String url : classPath.trim().split("\\s+")) {
          out.add(new File(java.net.URI.create(url).getPath()).getPath());
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // not a jar with a usable manifest: its own entry is enough
    }
    return out;
  }
}
