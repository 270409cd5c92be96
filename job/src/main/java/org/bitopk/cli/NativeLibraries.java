package org.bitopk.cli;

import java.util.Locale;
import java.util.Optional;

/**
 * ND4J's native libraries (nd4j-native and OpenBLAS through JavaCPP) that cannot be loaded. ND4J reports it as
 * an {@code ExceptionInInitializerError} (later a {@code NoClassDefFoundError}) with the missing library several
 * causes down; the line names the library, the platform JavaCPP looked for and the one this build carries.
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
    boolean nd4j = false;
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof UnsatisfiedLinkError link && missing == null) {
        missing = link;
      }
      String message = String.valueOf(t.getMessage());
      nd4j |= message.contains("ND4J") || message.contains("org.nd4j") || message.contains("nd4j")
          || java.util.Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().startsWith("org.nd4j."));
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
