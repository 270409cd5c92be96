package org.bitopk.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.bitopk.job.ExitCode;
import org.junit.jupiter.api.Test;

/**
 * A native library that exists but cannot be mapped into memory is a memory limit, not a wrong platform. The
 * failure is built as ND4J reports it: its initializer's error, JavaCPP's link error, and beneath it the dynamic
 * loader's own words under an address-space limit (glibc's dlopen: "failed to map segment from shared object").
 */
class NativeLibrariesTest {
  private static final String LIBRARY = "/home/alice/.javacpp/cache/nd4j-native-1.0.0-M2.1-linux-x86_64.jar/org/nd4j/"
      + "linalg/cpu/nativecpu/bindings/linux-x86_64/libjnind4jcpu.so";

  private static Throwable nd4jFailure(String loaderMessage) {
    UnsatisfiedLinkError dlopen = new UnsatisfiedLinkError(LIBRARY + ": " + loaderMessage);
    UnsatisfiedLinkError javacpp = new UnsatisfiedLinkError("no jnind4jcpu in java.library.path: /usr/lib");
    javacpp.initCause(dlopen);
    RuntimeException nd4j = new RuntimeException("ND4J is probably missing dependencies. For more information, "
        + "please refer to: https://deeplearning4j.konduit.ai/nd4j/backends", javacpp);
    return new ExceptionInInitializerError(nd4j);
  }

  @Test
  void aLibraryThatCannotBeMappedNamesTheMemoryLimitNotThePlatform() throws Exception {
    Failures.Outcome outcome = Failures.classify(nd4jFailure("failed to map segment from shared object"));
    assertEquals(ExitCode.BAD_INPUT, outcome.code());
    String line = outcome.line();
    assertTrue(line.startsWith("the native library " + LIBRARY + " could not be mapped into memory (failed to map "
        + "segment from shared object): "), line);
    assertFalse(line.contains("platform") || line.contains("run it on"), "not the platform: " + line);
    String limit = Files.readAllLines(Path.of("/proc/self/limits")).stream()
        .filter(l -> l.startsWith("Max address space")).findFirst().orElseThrow()
        .substring("Max address space".length()).trim().split("\\s+")[0];
    if (limit.equals("unlimited")) {
      assertTrue(line.contains("a limit on the process's memory (ulimit -v)"), line);
    } else {
      assertTrue(line.contains(String.format(Locale.ROOT, "may use %,d KB of address space (ulimit -v)",
          Long.parseLong(limit) / 1024)), line);
    }
  }

  @Test
  void aMissingLibraryStillNamesThePlatform() {
    Failures.Outcome outcome = Failures.classify(nd4jFailure("cannot open shared object file: No such file or "
        + "directory"));
    assertEquals(ExitCode.BAD_INPUT, outcome.code());
    assertTrue(outcome.line().contains("this build bundles nd4j-native for linux-x86_64 only"), outcome.line());
  }
}
