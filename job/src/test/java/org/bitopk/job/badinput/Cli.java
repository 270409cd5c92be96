package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.cli.Main;

/** The command line in this JVM ({@link Main#execute}) and what the tests check about its outcome. */
final class Cli {
  private Cli() {}

  /** Exit code, stdout and stderr of one command. */
  record Outcome(int code, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }

    /** Exit {@code code} and exactly one {@code bitopk:} line on stderr, which contains every {@code named}. */
    Outcome failsWithOneLine(int expectedCode, String... named) {
      assertEquals(expectedCode, code, () -> "exit code; stderr:\n" + err + "\nstdout:\n" + out);
      assertEquals(1, errLines().size(), () -> "exactly one line on stderr, got:\n" + err);
      assertTrue(err.startsWith("bitopk: "), err);
      for (String n : named) {
        assertTrue(err.contains(n), () -> "the line must name " + n + ": " + err);
      }
      assertFalse(err.contains("\tat ") || err.contains("Exception"), () -> "no stack trace: " + err);
      assertEquals("", out, "nothing on stdout that could pass for a summary");
      return this;
    }

    Outcome succeeds() {
      assertEquals(0, code, () -> "stderr:\n" + err);
      return this;
    }
  }

  static Outcome run(JavaSparkContext sc, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, sc, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Outcome(code, out.toString(), err.toString());
  }

  static Outcome run(JavaSparkContext sc, List<String> args) {
    return run(sc, args.toArray(String[]::new));
  }

  /** Every file under {@code dir} (relative path, "/" separated) with its bytes; empty if absent. */
  static Map<String, byte[]> snapshot(Path dir) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    if (!Files.exists(dir)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(dir.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
      }
    }
    return files;
  }

  /** The relative paths of the files under {@code dir}, without Hadoop's checksum side files. */
  static List<String> files(Path dir) throws IOException {
    return snapshot(dir).keySet().stream().filter(f -> !f.endsWith(".crc")).toList();
  }

  /** Asserts two snapshots hold the same files with the same bytes. */
  static void assertSame(Map<String, byte[]> before, Map<String, byte[]> after, String what) {
    assertEquals(before.keySet(), after.keySet(), what + ": the same files");
    for (String f : before.keySet()) {
      assertTrue(java.util.Arrays.equals(before.get(f), after.get(f)), what + ": " + f + " unchanged");
    }
  }
}
