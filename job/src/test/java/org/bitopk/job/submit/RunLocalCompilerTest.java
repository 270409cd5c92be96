package org.bitopk.job.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * run-local.sh compiles with C1 alone on a machine of 2 cores or fewer and leaves the JVM's tiers alone on a larger
 * one or when JAVA_OPTS name a tiered-compilation setting: the JVM's own final flags (-XX:+PrintFlagsFinal) say
 * which tier it stops at, and that the code cache keeps the tiered default of 240 MB, with an {@code nproc} on the
 * PATH that reports the cores asked for.
 */
class RunLocalCompilerTest {
  private static final Pattern STOP_AT = Pattern.compile("\\bTieredStopAtLevel\\s+=\\s+(\\d)");
  private static final Pattern CODE_CACHE = Pattern.compile("\\bReservedCodeCacheSize\\s+=\\s+(\\d+)");
  /** The tiered default, which C1 alone would cut to 48 MB: too little for Spark, DL4J and Scala in one JVM. */
  private static final long CODE_CACHE_BYTES = 240L << 20;

  @TempDir
  Path tmp;

  @Test
  void c1AloneOnTwoCoresUnlessJavaOptsChoose() throws Exception {
    Path script = ClassDataSharingTest.tree(tmp);
    assertEquals(1, stopLevel(script, 1, ""));
    assertEquals(1, stopLevel(script, 2, ""));
    assertEquals(4, stopLevel(script, 3, ""));
    assertEquals(4, stopLevel(script, 8, ""));
    assertEquals(4, stopLevel(script, 2, "-XX:TieredStopAtLevel=4"));
    assertEquals(3, stopLevel(script, 8, "-XX:TieredStopAtLevel=3"));
    for (int cores : new int[] {1, 2, 8}) {
      assertTrue(Long.parseLong(flag(CODE_CACHE, script, cores, "")) >= CODE_CACHE_BYTES, cores + " cores");
    }
  }

  /** The tier the job's JVM stops at when run-local.sh runs on {@code cores} cores with {@code javaOptions}. */
  private int stopLevel(Path script, int cores, String javaOptions) throws Exception {
    return Integer.parseInt(flag(STOP_AT, script, cores, javaOptions));
  }

  /** A final flag's value, as the job's JVM prints it when run-local.sh runs on {@code cores} cores. */
  private String flag(Pattern flag, Path script, int cores, String javaOptions) throws Exception {
    Path bin = tmp.resolve("bin");
    Files.writeString(bin.resolve("nproc"), "#!/usr/bin/env bash\necho " + cores + "\n");
    assertTrue(bin.resolve("nproc").toFile().setExecutable(true));
    Path out = Files.createTempFile(tmp, "stdout-", ".txt");
    Path err = Files.createTempFile(tmp, "stderr-", ".txt");
    ProcessBuilder builder = new ProcessBuilder(List.of("bash", script.toString(), "--version"))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    builder.environment().put("JAVA_OPTS", ("-Xmx256m -XX:+PrintFlagsFinal " + javaOptions).trim());
    Process process = builder.start();
    assertTrue(process.waitFor(2, TimeUnit.MINUTES), "run-local.sh --version ended");
    assertEquals(0, process.exitValue(), Files.readString(err));
    Matcher m = flag.matcher(Files.readString(out));
    assertTrue(m.find(), "the JVM printed its flags");
    return m.group(1);
  }
}
