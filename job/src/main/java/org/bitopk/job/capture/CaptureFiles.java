package org.bitopk.job.capture;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.engine.VectorCapture;
import org.bitopk.job.output.AtomicFiles;

/**
 * Where captured vectors live in a run directory, {@code captures/round-NNNNNN/worker-NNNN.bin} (1-based round,
 * 0-based worker, in {@link CaptureFormat}), how the driver writes them and how they are found again.
 *
 * <p><b>Why the driver writes them, not the executors.</b> The executors compute c_i, but the file is written by
 * the driver from the worker reports of the captured round:
 * <ul>
 *   <li>The run directory is only guaranteed to be reachable from the driver. A run with
 *   {@code --output /data/run} on a cluster has its directory on the driver's disk; executors on other hosts
 *   writing "the same" path would scatter the files over their own disks (or fail on YARN/Kubernetes containers).
 *   The driver writes through the run's Hadoop FileSystem, whatever it is, under the run's lease.</li>
 *   <li>Only the attempts the driver accepted reach it. A retried or speculative task attempt computes a c_i
 *   too, possibly from a rolled-back or fresh state; written from an executor, the last attempt to finish would
 *   win, not the one the run used. From the driver, the file always holds the vector the run compressed, and a
 *   round redone after a resume writes the same bytes again (the run is deterministic).</li>
 *   <li>Every file is written with {@link AtomicFiles}: it is whole under its final name or absent.</li>
 * </ul>
 * The cost is the transfer: a captured round brings P·d·4 bytes to the driver in its task results (19 MB for the
 * Fashion-MNIST MLP at P = 20, 1.6 GB for VGG-19 at P = 20), which Spark bounds by
 * {@code spark.driver.maxResultSize} (default 1 GiB): raise it for large models, or capture fewer workers' rounds.
 * Captures are for a few rounds of a run, not every round.
 */
public final class CaptureFiles {
  /** The directory in a run directory that holds the captures. */
  public static final String DIRECTORY = org.bitopk.job.output.RunDirectory.CAPTURES;

  private static final Pattern ROUND = Pattern.compile("round-(\\d{6,})");
  private static final Pattern WORKER = Pattern.compile("worker-(\\d{4,})\\.bin");

  private CaptureFiles() {}

  /** {@code run/captures/round-NNNNNN/worker-NNNN.bin}. */
  public static Path file(Path run, int round, int worker) {
    return new Path(new Path(new Path(run, DIRECTORY), String.format(Locale.ROOT, "round-%06d", round)),
        String.format(Locale.ROOT, "worker-%04d.bin", worker));
  }

  /**
   * The driver's writer for a run: one file per worker and captured round, written atomically into
   * {@code run/captures/}.
   *
   * @param workers P
   * @param density the run's uplink density, recorded in every file
   * @param targetK the run's uplink target k, recorded in every file
   */
  public static VectorCapture writer(FileSystem fs, Path run, int workers, double density, int targetK) {
    return (round, worker, learningRate, compensated) -> {
      byte[] bytes = CaptureFormat.encode(
          CapturedVector.trusted(round, worker, workers, learningRate, density, targetK, compensated));
      AtomicFiles.write(fs, file(run, round, worker), out -> out.write(bytes));
    };
  }

  /**
   * The capture files under {@code dir} (a run directory, or its {@code captures} directory), by round, each
   * round's files in worker order. Hidden and temporary names ({@code _tmp-…}, {@code .…crc}) are skipped.
   *
   * @throws IllegalArgumentException naming {@code dir} when it holds no capture, or a name in it that is not a
   *     capture's
   */
  public static SortedMap<Integer, List<Path>> list(FileSystem fs, Path dir) throws IOException {
    Path captures = fs.exists(new Path(dir, DIRECTORY)) ? new Path(dir, DIRECTORY) : dir;
    SortedMap<Integer, List<Path>> rounds = new TreeMap<>();
    FileStatus[] entries;
    try {
      entries = fs.listStatus(captures);
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException("--captures " + dir + ": no such directory");
    }
    for (FileStatus entry : entries) {
      String name = entry.getPath().getName();
      if (hidden(name)) {
        continue;
      }
      Matcher m = ROUND.matcher(name);
      if (!entry.isDirectory() || !m.matches()) {
        if (captures != dir) {
          throw new IllegalArgumentException("--captures " + dir + ": unexpected " + entry.getPath()
              + " (expected only round-NNNNNN directories in " + captures + ")");
        }
        continue;   // a run directory's other files
      }
      TreeMap<Integer, Path> workers = new TreeMap<>();
      for (FileStatus file : fs.listStatus(entry.getPath())) {
        String fileName = file.getPath().getName();
        if (hidden(fileName)) {
          continue;
        }
        Matcher w = WORKER.matcher(fileName);
        if (file.isDirectory() || !w.matches()) {
          throw new IllegalArgumentException("--captures " + dir + ": unexpected " + file.getPath()
              + " (expected worker-NNNN.bin files)");
        }
        workers.put(Integer.parseInt(w.group(1)), file.getPath());
      }
      if (!workers.isEmpty()) {
        rounds.put(Integer.parseInt(m.group(1)), new ArrayList<>(workers.values()));
      }
    }
    if (rounds.isEmpty()) {
      throw new IllegalArgumentException("--captures " + dir + ": no captured vectors (expected "
          + DIRECTORY + "/round-NNNNNN/worker-NNNN.bin files, written by train --capture-vectors)");
    }
    return rounds;
  }

  /**
   * Reads one capture file and checks that its header agrees with its name.
   *
   * @throws IllegalArgumentException one line naming the file (see {@link CaptureFormat#decode})
   */
  public static CapturedVector read(FileSystem fileSystem, Path file) throws IOException {
    // The format carries its own CRC32C and length check, which name what is wrong (truncated, damaged); the local
    // file system's .crc side files would only report a "Checksum error" first, so they are bypassed.
    FileSystem fs = fileSystem instanceof ChecksumFileSystem checked ? checked.getRawFileSystem() : fileSystem;
    long length = fs.getFileStatus(file).getLen();
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(file + ": " + length + " bytes, too large for a captured vector");
    }
    byte[] bytes = new byte[(int) length];
    try (InputStream in = fs.open(file)) {
      int n = in.readNBytes(bytes, 0, bytes.length);
      if (n != bytes.length) {
        throw new IllegalArgumentException(file + ": truncated while reading (" + n + " of " + length + " bytes)");
      }
    } catch (ChecksumException e) {
      throw new IllegalArgumentException(file + ": damaged: the file system's checksum does not match ("
          + e.getMessage() + ")", e);
    }
    CapturedVector v = CaptureFormat.decode(file.toString(), bytes);
    Path expected = file(new Path("/"), v.round(), v.worker());
    if (!expected.getName().equals(file.getName())
        || !expected.getParent().getName().equals(file.getParent().getName())) {
      throw new IllegalArgumentException(file + ": holds round " + v.round() + ", worker " + v.worker()
          + ", which belongs in " + expected.getParent().getName() + "/" + expected.getName());
    }
    return v;
  }

  private static boolean hidden(String name) {
    return name.startsWith("_") || name.startsWith(".");
  }
}
