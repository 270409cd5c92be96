package org.bitopk.job.submit;

import static org.bitopk.job.submit.SubmitScriptsTest.SECRET;
import static org.bitopk.job.submit.SubmitScriptsTest.SECRET_VARIABLE;
import static org.bitopk.job.submit.SubmitScriptsTest.SUBMIT;
import static org.bitopk.job.submit.SubmitScriptsTest.fakeSparkSubmitIn;
import static org.bitopk.job.submit.SubmitScriptsTest.recordedArgv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cluster scripts take the application jar of the cluster's Spark line, read from {@code spark-submit
 * --version}: job/target's bitopk_2.13 jar for Spark 4, bitopk_2.12 for Spark 3.5 (k8s.sh: the image's path of that
 * jar). A jar of the other line, a job/target without the line's jar, or a Spark bitopk has no line for is one
 * line naming both versions and the build command, exit status 2, and spark-submit never runs the job. Each case
 * runs a copy of submit/ in a repository of its own, whose job/target holds the jars.
 */
class ApplicationJarLineTest {
  static final String SPARK_4 = "4.2.0";
  static final String SPARK_35 = "3.5.7";
  static final String BUILD_4 = "mvn -B -pl job -am package -DskipTests";
  static final String BUILD_35 = "mvn -B -Pspark-3.5 -pl job/dl4j-baselines -am package -DskipTests";

  /** Per cluster script: the options it needs to reach spark-submit. */
  static Stream<Arguments> clusterScripts() {
    return Stream.of(
        Arguments.of("standalone.sh", List.of("--master", "spark://10.0.0.1:7077")),
        Arguments.of("yarn.sh", List.of()),
        Arguments.of("k8s.sh", List.of("--master", "k8s://https://kube:6443", "--image", "reg/bitopk:1")));
  }

  record Outcome(int exit, String stderr, Path tmp) {}

  /** Runs the copied {@code script} against a spark-submit of Spark {@code spark}, Scala {@code scala}. */
  static Outcome run(Path tmp, String script, List<String> options, String spark, String scala, List<String> jars,
      List<String> extra) throws IOException, InterruptedException {
    Path repo = tmp.resolve("repo");
    Path submit = Files.createDirectories(repo.resolve("submit"));
    try (Stream<Path> files = Files.list(SUBMIT)) {
      for (Path file : files.toList()) {
        Files.copy(file, submit.resolve(file.getFileName()));
      }
    }
    Path target = Files.createDirectories(repo.resolve("job/target"));
    for (String jar : jars) {
      Files.createFile(target.resolve(jar));
    }
    Path bin = fakeSparkSubmitIn(tmp.resolve("bin"), tmp, spark, scala).getParent();
    List<String> command = new ArrayList<>(List.of("/bin/bash", submit.resolve(script).toString()));
    command.addAll(options);
    command.addAll(extra);
    command.addAll(List.of("--", "train", "--workers", "2"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(tmp.resolve("stdout").toFile())
        .redirectError(tmp.resolve("stderr").toFile());
    builder.environment().clear();
    builder.environment().put("PATH", bin + ":/usr/bin:/bin");
    builder.environment().put("HADOOP_CONF_DIR", tmp.toString());
    builder.environment().put(SECRET_VARIABLE, SECRET);
    Process process = builder.start();
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), script + " hung");
    return new Outcome(process.exitValue(), Files.readString(tmp.resolve("stderr")), tmp);
  }

  /** The jar spark-submit was given: the argument before the job's. */
  static String submittedJar(Path tmp) throws IOException {
    List<String> argv = recordedArgv(tmp);
    return argv.get(argv.indexOf("train") - 1);
  }

  static void assertRefused(Outcome outcome, String... parts) {
    assertEquals(2, outcome.exit(), outcome.stderr());
    assertEquals(1, outcome.stderr().lines().count(), outcome.stderr());
    for (String part : parts) {
      assertTrue(outcome.stderr().contains(part), "'" + part + "' missing from: " + outcome.stderr());
    }
    assertFalse(Files.exists(outcome.tmp().resolve("argv")), "spark-submit must not run the job");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clusterScripts")
  void eachLineGetsItsOwnJar(String script, List<String> options, @org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    List<String> both = List.of("bitopk_2.12-0.1.0-SNAPSHOT.jar", "bitopk_2.13-0.1.0-SNAPSHOT.jar");
    Outcome four = run(Files.createDirectories(tmp.resolve("four")), script, options, SPARK_4, "2.13.18", both,
        List.of());
    assertEquals(0, four.exit(), four.stderr());
    Outcome old = run(Files.createDirectories(tmp.resolve("old")), script, options, SPARK_35, "2.12.18", both,
        List.of());
    assertEquals(0, old.exit(), old.stderr());
    if (script.equals("k8s.sh")) {   // the jar inside the image
      assertEquals("local:///opt/bitopk/bitopk_2.13.jar", submittedJar(four.tmp()));
      assertEquals("local:///opt/bitopk/bitopk_2.12.jar", submittedJar(old.tmp()));
    } else {
      assertEquals(four.tmp().resolve("repo/submit/../job/target/bitopk_2.13-0.1.0-SNAPSHOT.jar").toString(),
          submittedJar(four.tmp()));
      assertEquals(old.tmp().resolve("repo/submit/../job/target/bitopk_2.12-0.1.0-SNAPSHOT.jar").toString(),
          submittedJar(old.tmp()));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clusterScripts")
  void aJarOfTheOtherLineIsOneLineNamingBothVersionsAndTheBuildCommand(String script, List<String> options,
      @org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    Path jar = Files.createFile(tmp.resolve("bitopk_2.12-0.1.0-SNAPSHOT.jar"));
    assertRefused(run(Files.createDirectories(tmp.resolve("given")), script, options, SPARK_4, "2.13.18", List.of(),
        List.of("--jar", jar.toString())), "Spark 3.5 (Scala 2.12)", "Spark 4.2.0 (Scala 2.13)", BUILD_4);
    assertRefused(run(Files.createDirectories(tmp.resolve("image")), script, options, SPARK_35, "2.12.18", List.of(),
        List.of("--jar", "local:///opt/bitopk/bitopk_2.13.jar")), "Spark 4 (Scala 2.13)", "Spark 3.5.7 (Scala 2.12)",
        BUILD_35);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clusterScripts")
  void aBuildWithoutTheLinesJarIsOneLineNamingBothVersionsAndTheBuildCommand(String script, List<String> options,
      @org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    if (script.equals("k8s.sh")) {
      return;   // its jar is inside the image, not in job/target
    }
    assertRefused(run(tmp, script, options, SPARK_35, "2.12.18", List.of("bitopk_2.13-0.1.0-SNAPSHOT.jar"),
        List.of()), "bitopk_2.13-0.1.0-SNAPSHOT.jar", "Spark 4 (Scala 2.13)", "Spark 3.5.7 (Scala 2.12)", BUILD_35);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clusterScripts")
  void aSparkWithoutABitopkLineIsOneLineNamingItAndBothBuilds(String script, List<String> options,
      @org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    List<String> both = List.of("bitopk_2.12-0.1.0-SNAPSHOT.jar", "bitopk_2.13-0.1.0-SNAPSHOT.jar");
    assertRefused(run(Files.createDirectories(tmp.resolve("old")), script, options, "3.4.4", "2.12.17", both,
        List.of()), "Spark 3.4.4 (Scala 2.12)", BUILD_4, BUILD_35);
    assertRefused(run(Files.createDirectories(tmp.resolve("scala")), script, options, SPARK_35, "2.13.8", both,
        List.of()), "Spark 3.5.7 (Scala 2.13)", BUILD_4, BUILD_35);
  }
}
