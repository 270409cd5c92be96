package org.bitopk.datasets;

import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * End-to-end cost of turning the Fashion-MNIST {@code .gz} files into worker shards, against the baseline of
 * only gunzipping the same files through the same Hadoop FileSystem (measured in the same run). Not a test:
 * run it with
 * {@code mvn -B -q -o -pl datasets test-compile exec:java -Dexec.mainClass=org.bitopk.datasets.LoadBenchmark
 * -Dexec.classpathScope=test [-Dexec.args="<dir> <repetitions>"]}.
 */
public final class LoadBenchmark {
  private static final String[] FILES = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
      "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};

  private LoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    String dir = args.length > 0 ? args[0] : Datasets.FASHION_MNIST_DEFAULT;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    Configuration conf = new Configuration();
    double[] gunzip = new double[repetitions];
    double[] load = new double[repetitions];
    double[] iid = new double[repetitions];
    double[] nonIid = new double[repetitions];
    long checksum = 0;
    for (int r = -1; r < repetitions; r++) { // r = -1 warms up the JIT and the page cache
      long t0 = System.nanoTime();
      long bytes = gunzipOnly(dir, conf);
      long t1 = System.nanoTime();
      TrainTest data = Datasets.load("fashion-mnist", dir, conf);
      long t2 = System.nanoTime();
      List<WorkerShard> iidShards = ShardSplitter.iid(data.train(), 100, r);
      long t3 = System.nanoTime();
      List<WorkerShard> nonIidShards = ShardSplitter.nonIid(data.train(), 100, r);
      long t4 = System.nanoTime();
      checksum += bytes + iidShards.get(0).data().count() + nonIidShards.get(99).data().count();
      if (r >= 0) {
        gunzip[r] = (t1 - t0) / 1e6;
        load[r] = (t2 - t1) / 1e6;
        iid[r] = (t3 - t2) / 1e6;
        nonIid[r] = (t4 - t3) / 1e6;
      }
    }
    double base = median(gunzip);
    System.out.printf(Locale.ROOT, "Fashion-MNIST (%s), median of %d runs after 1 warm-up (checksum %d)%n", dir,
        repetitions, checksum);
    System.out.printf(Locale.ROOT, "%-44s %9s %8s%n", "step", "ms", "x gunzip");
    print("gunzip only (baseline, 4 files)", gunzip, base);
    print("Datasets.load (gunzip+validate+normalise)", load, base);
    print("ShardSplitter.iid, P=100", iid, base);
    print("ShardSplitter.nonIid, P=100", nonIid, base);
    double[] total = new double[repetitions];
    for (int r = 0; r < repetitions; r++) {
      total[r] = load[r] + iid[r];
    }
    print("load + iid split into 100 shards", total, base);
  }

  /** Reads every file through the same FileSystem and gunzip as the loader, into a scratch buffer. */
  private static long gunzipOnly(String dir, Configuration conf) throws Exception {
    byte[] buffer = new byte[1 << 20];
    long total = 0;
    for (String name : FILES) {
      Path path = new Path(dir, name);
      FileSystem fs = path.getFileSystem(conf);
      try (InputStream in = new GZIPInputStream(fs.open(path), 1 << 16)) {
        int n;
        while ((n = in.read(buffer)) > 0) {
          total += n;
        }
      }
    }
    return total;
  }

  private static void print(String step, double[] ms, double base) {
    double median = median(ms);
    System.out.printf(Locale.ROOT, "%-44s %9.1f %8.2f%n", step, median, median / base);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
