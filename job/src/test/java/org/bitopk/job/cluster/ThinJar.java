package org.bitopk.job.cluster;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.bitopk.job.spark.ExecutorWarmUpAgent;

/**
 * The application jar of the cluster tests: the project's compiled class directories packed into one jar,
 * which spark-submit ships as it ships the real (shaded) jar that {@code mvn test} never builds. Its manifest names
 * the executors' warm-up agent, as the real jar's does.
 */
final class ThinJar {
  private ThinJar() {
  }

  /** Packs every regular file below {@code directories} (the first of two equal names wins) into {@code jar}. */
  static Path pack(List<Path> directories, Path jar) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Premain-Class", ExecutorWarmUpAgent.class.getName());
    java.util.Set<String> written = new java.util.HashSet<>();
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
      for (Path dir : directories) {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
          files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
          String name = dir.relativize(file).toString().replace(File.separatorChar, '/');
          if (name.equals("META-INF/MANIFEST.MF") || !written.add(name)) {
            continue;
          }
          jarOut.putNextEntry(new JarEntry(name));
          Files.copy(file, jarOut);
          jarOut.closeEntry();
        }
      }
    }
    return jar;
  }

}
