package org.bitopk.job.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bitopk.job.ExitCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A machine that cannot run the job, in the job's own JVM: too few file descriptors (the JVM could not even open
 * its class path's jars), ND4J's native libraries that do not load. One line saying what is missing, exit code 2,
 * nothing created. Both end before Spark starts, so the two JVMs run side by side.
 */
class MachineLimitsTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @TempDir
  static Path tmp;

  @Test
  void tooFewFileDescriptorsAndMissingNativesAreOneLineEach() throws Exception {
    Path fewOut = tmp.resolve("few-descriptors");
    JobProcess few = JobProcess.start(tmp.resolve("streams"), List.of("bash", "-c", "ulimit -n 256 && exec \"$@\"",
        "bash"), List.of(), List.of("--dataset", "synthetic:n=64,test=16", "--model", "mlp-small", "--workers", "2",
        "--max-iterations", "1", "--master", "local[2]", "--output", fewOut.toString()));
    Path nativesOut = tmp.resolve("no-natives");
    JobProcess natives = JobProcess.start(tmp.resolve("streams"), List.of("-Dorg.bytedeco.javacpp.platform=linux-arm64"),
        List.of("--dataset", "synthetic:n=64,test=16", "--model", "mlp-small", "--workers", "2", "--max-iterations",
            "1", "--master", "local[2]", "--output", nativesOut.toString()));

    JobProcess.Finished limited = few.await(TIMEOUT);
    OneLineFailuresTest.assertOneLine(limited, ExitCode.BAD_INPUT, "bitopk: too few file descriptors: this process "
        + "may open 256 files (ulimit -n) and needs at least ", "jars on its class path", "e.g. ulimit -n 4096");
    long jars = List.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)).stream()
        .filter(e -> e.endsWith(".jar")).count();
    assertEquals(1, limited.errLines().stream().filter(l -> l.contains("needs at least " + (jars + 256) + " ("
        + jars + " jars")).count(), limited.err());
    assertFalse(Files.exists(fewOut), "nothing created");

    JobProcess.Finished unloaded = natives.await(TIMEOUT);
    OneLineFailuresTest.assertOneLine(unloaded, ExitCode.BAD_INPUT, "bitopk: ND4J's native libraries could not be "
        + "loaded (no jni", ") for platform linux-arm64 (-Dorg.bytedeco.javacpp.platform): this build bundles "
        + "nd4j-native for linux-x86_64 only; run it on a linux-x86_64 JVM and without -Dorg.bytedeco.javacpp.platform");
    assertFalse(Files.exists(nativesOut), "nothing created");
  }
}
