package org.bitopk.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * ND4J's native libraries (nd4j-native and OpenBLAS through JavaCPP) that cannot be loaded. ND4J reports it as
 * an {@code ExceptionInInitializerError} (later a {@code NoClassDefFoundError}) with the missing library several
 * causes down; the line names the library, the platform JavaCPP looked for and the one this build carries. A
 * library that exists but cannot be mapped into memory (any native library: the dynamic loader says "failed to
 * map segment from shared object") is a limit on the process's memory, typically {@code ulimit -v}, not the
 * platform: that line names the limit.
 */
final class NativeLibraries {
  /** The one platform whose natives the build bundles (the classifier of nd4j-native in the pom). */
  static final String BUNDLED = "linux-x86_64";
  /** JavaCPP's setting that overrides the platform it loads natives for. */
  private static final String PLATFORM_PROPERTY = "org.bytedeco.javacpp.platform";

  private NativeLibraries() {}

  /** The line for {@code failure} when a native library of ND4J could not be loaded. */
  static Optional<String> explain(Throwable failure) {
    UnsatisfiedLinkError missing = null;
    UnsatisfiedLinkError unmapped = null;
    boolean nd4j = false;
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof UnsatisfiedLinkError link && missing == null) {
        missing = link;
      }
      if (t instanceof UnsatisfiedLinkError link && unmapped == null
          && MAPPING_FAILED.matcher(String.valueOf(link.getMessage())).find()) {
        unmapped = link;
      }
      String message = String.valueOf(t.getMessage());
      nd4j |= message.contains("ND4J") || message.contains("org.nd4j") || message.contains("nd4j")
          || java.util.Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().startsWith("org.nd4j."));
    }
    if (unmapped != null) {
      return Optional.of(unmappable(unmapped));
    }
    if (missing == null || !nd4j) {
      return Optional.empty();
    }
    String library = String.valueOf(missing.getMessage()).lines().findFirst().orElse("")
        .replaceFirst(" in java\\.library\\.path.*$", "");
    String set = System.getProperty(PLATFORM_PROPERTY);
    String platform = set != null ? set + " (-D" + PLATFORM_PROPERTY + ")" : platform();
    return Optional.of("ND4J's native libraries could not be loaded (" + library + ") for platform " + platform
        + ": this build bundles nd4j-native for " + BUNDLED + " only; run it on a " + BUNDLED + " JVM"
        + (set != null && !set.equals(BUNDLED) ? " and without -D" + PLATFORM_PROPERTY : ""));
  }

  /** glibc's dlopen when mmap fails (ENOMEM under an address-space limit), and the error's own text. */
  private static final Pattern MAPPING_FAILED = Pattern.compile("failed to map segment from shared object|"
      + "[Cc]annot allocate memory");
  private static final Path LIMITS = Path.of("/proc/self/limits");

  private static String unmappable(UnsatisfiedLinkError missing) {
    String first = String.valueOf(missing.getMessage()).lines().findFirst().orElse("");
    String library = first.replaceFirst(":.*$", "");
    return "the native library " + library + " could not be mapped into memory (" + first.substring(
        first.lastIndexOf(": ") + 2) + "): " + addressSpaceLimit().map(kb -> String.format(Locale.ROOT,
            "this process may use %,d KB of address space (ulimit -v), too little for the JVM, Spark and ND4J's "
            + "native libraries; raise the limit (e.g. ulimit -v unlimited)", kb))
        .orElse("the machine has too little memory free, or a limit on the process's memory (ulimit -v) is too "
            + "low; free memory or raise the limit");
  }

  /** The soft limit on this process's address space in KB (ulimit -v), when there is one. */
  private static Optional<Long> addressSpaceLimit() {
    try {
      for (String line : Files.readAllLines(LIMITS)) {
        if (line.startsWith("Max address space")) {
          String soft = line.substring("Max address space".length()).trim().split("\\s+")[0];
          return soft.equals("unlimited") ? Optional.empty() : Optional.of(Long.parseLong(soft) / 1024);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or no /proc: the line says what to look at without the number
    }
    return Optional.empty();
  }

  /** This JVM's platform in JavaCPP's words (linux-x86_64, linux-arm64, macosx-arm64, …). */
  private static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String name = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macosx" : os.startsWith("windows")
        ? "windows" : os.replace(' ', '_');
    String cpu = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") ? "arm64" : arch;
    return name + "-" + cpu;
  }
}
