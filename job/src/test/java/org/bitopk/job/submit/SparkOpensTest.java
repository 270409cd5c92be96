package org.bitopk.job.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.launcher.JavaModuleOptions;
import org.bitopk.job.SparkJvmOpens;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Spark's JDK 17 option list is defined once, as the root pom's {@code spark.jvm.opens} (surefire and the test
 * harnesses use it from there). The copies that must live outside the build are checked against it token for
 * token, so editing one without the others fails here: spark-defaults.conf (read by every submit script), the
 * application jar's manifest {@code Add-Opens}, and run-local.sh, which reads the pom itself and is run here to
 * see what it passes to java.
 */
class SparkOpensTest {

  private static final Path ROOT = SparkJvmOpens.projectRoot();

  /**
   * Spark's launcher knows the list its version needs; a Spark upgrade that changes it fails here first. The build's
   * list serves both Spark lines: every option of this line's Spark, in its order, but the incubating Vector API
   * module Spark 4 adds (a JVM with it warns on stderr at every start; Spark uses it only when present).
   */
  @Test
  void theBuildListIsSparksOwn() {
    List<String> spark = sparksOwnList();
    List<String> build = SparkJvmOpens.options();
    assertEquals(spark, build.stream().filter(spark::contains).toList(), "Spark's options, in Spark's order");
    if (org.apache.spark.package$.MODULE$.SPARK_VERSION().startsWith("4.")) {   // the newest line's list is the build's
      assertEquals(spark, build.subList(0, spark.size()));
    }
  }

  /** This line's Spark's JDK 17 options, less the incubating module, which the build leaves out. */
  static List<String> sparksOwnList() {
    return Arrays.stream(JavaModuleOptions.defaultModuleOptions().trim().split("\\s+"))
        .filter(o -> !o.startsWith("--add-modules=")).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"})
  void sparkDefaultsStartWithExactlyTheBuildList(String key) throws IOException {
    Properties defaults = new Properties();
    defaults.load(new StringReader(Files.readString(ROOT.resolve("submit/spark-defaults.conf"))));
    List<String> options = List.of(defaults.getProperty(key).trim().split("\\s+"));
    List<String> opens = SparkJvmOpens.options();
    assertTrue(options.size() >= opens.size(), key + ": " + options);
    assertEquals(opens, options.subList(0, opens.size()), key + " must begin with the pom's spark.jvm.opens");
    for (String rest : options.subList(opens.size(), options.size())) {
      assertFalse(rest.startsWith("--add-opens") || opens.contains(rest),
          key + ": '" + rest + "' belongs in the pom's spark.jvm.opens, not after it");
    }
  }

  @Test
  void applicationManifestOpensTheSamePackages() {
    // The manifest's Add-Opens takes module/package pairs: --add-opens=M/P=ALL-UNNAMED becomes M/P.
    List<String> expected = SparkJvmOpens.options().stream().filter(o -> o.startsWith("--add-opens="))
        .map(o -> o.substring("--add-opens=".length(), o.length() - "=ALL-UNNAMED".length()))
        .collect(Collectors.toList());
    String manifest = SparkJvmOpens.property(ROOT.resolve("pom.xml"), "spark.manifest.opens");
    assertEquals(expected, List.of(manifest.trim().split("\\s+")));
  }

  @Test
  void runLocalPassesTheBuildListToJava(@TempDir Path tmp) throws Exception {
    List<String> argv = runLocal(tmp, Files.readString(ROOT.resolve("pom.xml")), 0);
    List<String> opens = SparkJvmOpens.options();
    int cp = argv.indexOf("-cp");
    assertEquals(opens, argv.subList(0, cp), "java options before -cp");
    assertEquals(List.of("org.bitopk.cli.Main", "train", "--workers", "2"), argv.subList(cp + 2, argv.size()));
  }

  @Test
  void runLocalRefusesAPomWithoutTheList(@TempDir Path tmp) throws Exception {
    String pom = Files.readString(ROOT.resolve("pom.xml")).replaceAll("(?s)<spark.jvm.opens>.*?</spark.jvm.opens>",
        "");
    runLocal(tmp, pom, 1);
    assertEquals("bitopk: " + tmp.resolve("project/pom.xml") + " defines no spark.jvm.opens property; expected "
        + "Spark's JVM options there", Files.readString(tmp.resolve("stderr")).trim());
  }

  /**
   * Runs a copy of run-local.sh in a project tree under tmp whose pom.xml is {@code pom}, with a classpath file
   * newer than every source (so it does not build) and a fake java that records its arguments.
   */
  private static List<String> runLocal(Path tmp, String pom, int expectedExit) throws Exception {
    Path project = Files.createDirectories(tmp.resolve("project"));
    Files.writeString(project.resolve("pom.xml"), pom);
    Path script = Files.createDirectories(project.resolve("submit")).resolve("run-local.sh");
    Files.copy(ROOT.resolve("submit/run-local.sh"), script);
    Path classpath = Files.createDirectories(project.resolve("job/target")).resolve("classpath.txt");
    Files.writeString(classpath, "/nonexistent.jar");
    Files.setLastModifiedTime(classpath, FileTime.from(Instant.now().plusSeconds(3600)));
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/bin/bash\nprintf '%s\\0' \"$@\" > '" + tmp.resolve("argv") + "'\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    // a machine of 8 cores, where the script leaves the JIT's tiers alone (RunLocalCompilerTest covers fewer)
    Path nproc = bin.resolve("nproc");
    Files.writeString(nproc, "#!/bin/bash\necho 8\n");
    Files.setPosixFilePermissions(nproc, PosixFilePermissions.fromString("rwxr-xr-x"));

    ProcessBuilder builder = new ProcessBuilder("/bin/bash", script.toString(), "train", "--workers", "2")
        .redirectOutput(tmp.resolve("stdout").toFile())
        .redirectError(tmp.resolve("stderr").toFile());
    builder.environment().clear();
    builder.environment().put("PATH", bin + ":/usr/bin:/bin");
    // The class-data archive's options would come first (ClassDataSharingTest): this test is about the list.
    builder.environment().put("BITOPK_CDS", "off");
    Process process = builder.start();
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), "run-local.sh hung");
    assertEquals(expectedExit, process.exitValue(), Files.readString(tmp.resolve("stderr")));
    if (expectedExit != 0) {
      return List.of();
    }
    String raw = new String(Files.readAllBytes(tmp.resolve("argv")), StandardCharsets.UTF_8);
    List<String> argv = new ArrayList<>(Arrays.asList(raw.split("\0", -1)));
    argv.remove(argv.size() - 1); // after the last NUL
    return argv;
  }
}
