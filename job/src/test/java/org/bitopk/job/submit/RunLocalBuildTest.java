package org.bitopk.job.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * run-local.sh's first call builds the job: whatever Maven prints then (it writes colour resets even in batch
 * mode) must not reach stdout, which carries only the job's output, and Maven is asked for no colour. A copy of
 * the script runs in a tree of its own, with an {@code mvn} on the PATH that prints what Maven would and writes the
 * class path, so the test builds nothing.
 */
class RunLocalBuildTest {
  private static final Path ROOT = SubmitScriptsTest.SUBMIT.getParent();

  @Test
  void theBuildWritesNothingOnStdout(@TempDir Path tmp) throws Exception {
    Path tree = tmp.resolve("tree");
    Files.createDirectories(tree.resolve("submit"));
    Files.createDirectories(tree.resolve("job/target"));
    Files.copy(ROOT.resolve("submit/run-local.sh"), tree.resolve("submit/run-local.sh"));
    Files.copy(ROOT.resolve("pom.xml"), tree.resolve("pom.xml"));
    Files.createSymbolicLink(tree.resolve("job/target/classes"), ROOT.resolve("job/target/classes"));
    String classPath = List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
        .filter(e -> !e.endsWith("test-classes") && !e.endsWith("job/target/classes")).collect(Collectors.joining(":"));
    Files.writeString(tmp.resolve("classpath.txt"), classPath);

    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(mvn, "#!/usr/bin/env bash\n"
        + "printf '%s\\n' \"$@\" > " + tmp.resolve("mvn-args") + "\n"
        + "printf '\\033[0m\\033[0m[INFO] compiling\\n'\n"
        + "printf '\\033[0m' >&2\n"
        + "cp " + tmp.resolve("classpath.txt") + " job/target/classpath.txt\n");
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));

    ProcessBuilder builder = new ProcessBuilder("bash", tree.resolve("submit/run-local.sh").toString(), "--version")
        .redirectOutput(tmp.resolve("stdout").toFile()).redirectError(tmp.resolve("stderr").toFile());
    builder.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    Process process = builder.start();
    assertTrue(process.waitFor(2, TimeUnit.MINUTES), "run-local.sh --version ended");
    String out = Files.readString(tmp.resolve("stdout"), StandardCharsets.UTF_8);
    String err = Files.readString(tmp.resolve("stderr"), StandardCharsets.UTF_8);
    assertEquals(0, process.exitValue(), err);

    List<String> args = Files.readAllLines(tmp.resolve("mvn-args"));
    assertTrue(args.contains("-B") && args.contains("-Dstyle.color=never"), "batch mode, no colour: " + args);
    assertTrue(out.startsWith("bitopk "), "the job's --version: " + out);
    assertFalse(out.contains("\u001b") || out.contains("[INFO]"), "nothing of the build on stdout: " + out);
    assertTrue(err.contains("building bitopk") && err.contains("[INFO] compiling"), "the build's lines on stderr: "
        + err);
  }
}
