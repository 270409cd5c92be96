package org.bitopk.job.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.bitopk.job.ChildJvmOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * run-local.sh's class-data archive (BITOPK_CDS=on): the first training run records it as it exits, and the next
 * run's JVM loads Spark's and bitopk's classes from it (the JVM's own class-loading log names the archive as their
 * source); without BITOPK_CDS=on nothing comes from it. A copy of the script runs in a tree of its own whose class
 * path is this test's, so nothing is built (an {@code mvn} on the PATH fails the test if the script tries).
 */
class ClassDataSharingTest {
  private static final Path ROOT = SubmitScriptsTest.SUBMIT.getParent();
  private static final String FROM_ARCHIVE = " source: shared objects file (top)";
  private static final List<String> TINY_RUN = List.of("--dataset", "counterexample:d=100,centres=-5;-5;10",
      "--mode", "bidirectional", "--k-up", "1", "--k-down", "1", "--max-iterations", "3", "--seed", "1");

  @TempDir
  Path tmp;

  @Test
  void theFirstRunRecordsTheArchiveAndTheNextLoadsSparkAndBitopkFromIt() throws Exception {
    Path script = tree();
    Path archive = tmp.resolve("tree/job/target/cds/classes.jsa");

    run(script, "on", "", withOutput("first"));
    assertTrue(Files.size(archive) > 1_000_000, "the first training run wrote the archive " + archive);
    assertTrue(Files.exists(archive.resolveSibling("classes-0.jar")), "the class directories packed into jars");

    Path loads = tmp.resolve("class-load.log");
    run(script, "on", "-Xlog:class+load=info:file=" + loads, withOutput("second"));
    List<String> lines = Files.readAllLines(loads);
    for (String name : List.of("org.apache.spark.SparkContext", "org.apache.spark.scheduler.DAGScheduler",
        "org.bitopk.job.engine.Trainer", "org.bitopk.job.engine.WorkerTask", "org.bitopk.compression.SparseCodec")) {
      assertTrue(lines.stream().anyMatch(l -> l.endsWith(" " + name + FROM_ARCHIVE)),
          name + " loaded from the archive: " + sourceOf(lines, name));
    }

    Path unshared = tmp.resolve("class-load-off.log");
    run(script, "", "-Xlog:class+load=info:file=" + unshared, List.of("--version"));
    List<String> off = Files.readAllLines(unshared);
    assertTrue(off.stream().anyMatch(l -> l.contains(" org.bitopk.cli.Main source: ")), "the run loaded Main");
    assertFalse(off.stream().anyMatch(l -> l.endsWith(FROM_ARCHIVE)), "by default: " + sourceOf(off, "Main"));
  }

  private List<String> withOutput(String name) {
    List<String> args = new ArrayList<>(TINY_RUN);
    args.add("--output");
    args.add(tmp.resolve(name).toString());
    return args;
  }

  private static String sourceOf(List<String> lines, String name) {
    return lines.stream().filter(l -> l.contains(name + " source: ")).findFirst().orElse("(not loaded)");
  }

  private Path tree() throws IOException {
    return tree(tmp);
  }

  /**
   * A tree in {@code tmp} with the script, the pom, this build's classes and a class path already written (nothing
   * stale), and {@code tmp/bin} for commands that stand in for the machine's (an {@code mvn} that fails).
   */
  static Path tree(Path tmp) throws IOException {
    Path tree = tmp.resolve("tree");
    Files.createDirectories(tree.resolve("submit"));
    Files.createDirectories(tree.resolve("job/target"));
    Path script = tree.resolve("submit/run-local.sh");
    Files.copy(ROOT.resolve("submit/run-local.sh"), script);
    Files.copy(ROOT.resolve("pom.xml"), tree.resolve("pom.xml"));
    Files.setLastModifiedTime(tree.resolve("pom.xml"), FileTime.from(Instant.now().minusSeconds(3600)));
    Files.createSymbolicLink(tree.resolve("job/target/classes"), ROOT.resolve("job/target/classes"));
    String classPath = List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
        .filter(e -> !e.endsWith("test-classes") && !e.endsWith("job/target/classes"))
        .collect(Collectors.joining(":"));
    Files.writeString(tree.resolve("job/target/classpath.txt"), classPath);
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Files.writeString(bin.resolve("mvn"), "#!/usr/bin/env bash\necho 'the script tried to build' >&2\nexit 99\n");
    assertTrue(bin.resolve("mvn").toFile().setExecutable(true));
    return script;
  }

  private void run(Path script, String cds, String javaOptions, List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", script.toString()));
    command.addAll(args);
    Path err = Files.createTempFile(tmp, "stderr-", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile())
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("PATH", tmp.resolve("bin") + File.pathSeparator + System.getenv("PATH"));
    builder.environment().put("JAVA_OPTS", (ChildJvmOptions.joined() + " -Xmx1g " + javaOptions).trim());
    if (!cds.isEmpty()) {
      builder.environment().put("BITOPK_CDS", cds);
    }
    Process process = builder.start();
    assertTrue(process.waitFor(5, TimeUnit.MINUTES), "run-local.sh " + args + " ended");
    assertEquals(0, process.exitValue(), Files.readString(err));
  }
}
