package org.bitopk.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * The version printed by {@code --version}: the build's own ({@code version.properties}, filled in by Maven
 * resource filtering, so it is right in the classes directory and in the application jar alike), and the
 * versions of what runs it, since a bug report needs both.
 */
public final class Version implements CommandLine.IVersionProvider {
  static final String RESOURCE = "/org/bitopk/cli/version.properties";

  /** The project version this build was made from, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String project() {
    return properties().getProperty("version");
  }

  @Override
  public String[] getVersion() {
    Properties p = properties();
    return new String[] {
        "bitopk " + p.getProperty("version"),
        "built with Spark " + p.getProperty("spark") + " (Scala " + p.getProperty("scala") + "), DL4J/ND4J "
            + p.getProperty("dl4j") + "; running on Java " + Runtime.version() + " ("
            + System.getProperty("java.vendor", "unknown vendor") + ")"};
  }

  private static Properties properties() {
    Properties p = new Properties();
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the build");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    return p;
  }
}
