package org.bitopk.job.badinput;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.bitopk.cli.Interruption;

/**
 * The local file system under the scheme {@code pausefs://}, which holds the job in the middle of one write:
 * the first file created whose name matches {@code fs.pausefs.hold} is created (so it exists, empty), then
 * the writing thread announces itself by creating the file {@code fs.pausefs.marker} and waits until a signal
 * has reached the job ({@link Interruption#requested}) or the test deletes the marker, before the write goes
 * on. A test thus acts (sends its signal, takes the lease over) while that exact file is being written, and
 * the job sees it before the write completes.
 *
 * <p>For the job's own JVM: set {@code spark.hadoop.fs.pausefs.impl} to this class (and the two keys above, to
 * hold) as system properties. Without {@code fs.pausefs.hold} it never holds.
 */
public final class PausingFileSystem extends RawLocalFileSystem {
  public static final String SCHEME = "pausefs";
  private static final URI ROOT = URI.create(SCHEME + ":///");
  private static final Duration PATIENCE = Duration.ofMinutes(2);
  private static final AtomicBoolean HELD = new AtomicBoolean();

  private Pattern hold;
  private java.nio.file.Path marker;

  /** A job held inside the write of one file; {@link #release} lets the write go on. */
  record Held(JobProcess job, java.nio.file.Path marker) {
    void release() throws IOException {
      Files.deleteIfExists(marker);
    }
  }

  /**
   * Starts the job with {@code command} (streams into {@code dir}/streams) and returns once it is held inside
   * the write of the first file whose name matches {@code regex}.
   */
  static Held hold(java.nio.file.Path dir, String regex, List<String> command) throws IOException,
      InterruptedException {
    java.nio.file.Path marker = dir.resolve("held-" + java.util.UUID.randomUUID() + ".txt");
    JobProcess job = JobProcess.start(dir.resolve("streams"), List.of(registered(),
        "-Dspark.hadoop.fs." + SCHEME + ".hold=" + regex, "-Dspark.hadoop.fs." + SCHEME + ".marker=" + marker),
        command);
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!Files.exists(marker) && job.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    if (!Files.exists(marker)) {
      throw new AssertionError("the job never wrote a file named like " + regex + "; stderr:\n"
          + job.await(Duration.ofMinutes(1)).err());
    }
    return new Held(job, marker);
  }

  /** The system property that registers the scheme (it then never holds). */
  static String registered() {
    return "-Dspark.hadoop.fs." + SCHEME + ".impl=" + PausingFileSystem.class.getName();
  }

  @Override
  public void initialize(URI uri, Configuration conf) throws IOException {
    super.initialize(uri, conf);
    String regex = conf.get("fs." + SCHEME + ".hold");
    hold = regex == null ? null : Pattern.compile(regex);
    String file = conf.get("fs." + SCHEME + ".marker");
    marker = file == null ? null : java.nio.file.Path.of(file);
  }

  @Override
  public URI getUri() {
    return ROOT;
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  protected OutputStream createOutputStreamWithMode(Path f, boolean append, FsPermission permission)
      throws IOException {
    OutputStream out = super.createOutputStreamWithMode(f, append, permission);
    if (hold != null && hold.matcher(f.getName()).matches() && HELD.compareAndSet(false, true)) {
      Files.writeString(marker, f.toString());
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (!Interruption.requested() && Files.exists(marker) && System.nanoTime() < deadline) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    return out;
  }
}
