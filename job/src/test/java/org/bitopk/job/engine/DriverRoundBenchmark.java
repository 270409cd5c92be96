package org.bitopk.job.engine;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.job.problem.synthetic.SyntheticGradientSetting;
import org.bitopk.job.spark.SparkSetup;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * The driver's time per bidirectional round ({@link DriverRound}: decode P uplinks, average, server error feedback and
 * TopK, encode, apply, broadcast) over d, P logical workers, ρ = k/d and the driver's aggregation threads (the decode
 * and sum of the uplinks; 1 unless given), the synthetic-gradient problem's uplinks with disjoint supports (overlap 0:
 * the driver receives P·k distinct coordinates while P·k ≤ d). Beside it,
 * {@link #memoryPass}: one copy of d floats (a read and a write of 4d bytes), the yardstick of the target. At the end of
 * each fork the driver's memory high-water marks are printed as one {@code driver-memory} line. One JVM per point, a
 * local Spark context for the broadcasts. Run with {@code job/bench/driver.sh}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+UseParallelGC"})
public class DriverRoundBenchmark {
  @Param({"1000000", "5000000", "25000000"})
  public int dimension;
  @Param({"8", "32", "128", "256"})
  public int workers;
  @Param({"0.001", "0.01"})
  public double density;
  /** The driver's aggregation threads (decode and sum of the uplinks); the rest of the round runs on one. */
  @Param({"1"})
  public int threads;

  private JavaSparkContext sc;
  private DriverRound driver;
  private float[] source;
  private float[] target;

  @Setup(Level.Trial)
  public void setUp() {
    int k = (int) Math.round(density * dimension);
    source = new float[dimension];
    target = new float[dimension];
    java.util.Arrays.fill(source, 1.5f);
    if (isMemoryPass()) {
      return;
    }
    sc = SparkSetup.start(SparkSetup.conf("local[1]").setAppName("driver-benchmark")
        .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1"));
    driver = DriverRound.create(sc, SyntheticGradientSetting.of(dimension, 0, 0.001), workers, k, 1, 2, threads);
  }

  /** JMH runs memoryPass once per (d, P, ρ) too; it needs neither Spark nor uplinks. */
  private boolean isMemoryPass() {
    return Boolean.getBoolean("driver.memoryPass");
  }

  @Benchmark
  public Object round() {
    return driver.next();
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Ddriver.memoryPass=true"})
  public float[] memoryPass() {
    System.arraycopy(source, 0, target, 0, source.length);
    return target;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (driver != null) {
      System.out.println(memoryLine());
      driver.close();
      sc.stop();
    }
  }

  /** Heap: the sum of the heap pools' peaks, and what stays after a full GC; off-heap: non-heap peaks and buffers. */
  private String memoryLine() throws Exception {
    long heapPeak = 0;
    long nonHeapPeak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPeak += pool.getPeakUsage().getUsed();
      } else {
        nonHeapPeak += pool.getPeakUsage().getUsed();
      }
    }
    long buffers = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      buffers += pool.getMemoryUsed();
    }
    System.gc();
    long retained = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    String hwm = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM:"))
        .map(l -> l.replaceAll("[^0-9]", "")).findFirst().orElse("-1");
    return String.format(Locale.ROOT, "driver-memory d=%d P=%d rho=%s threads=%d heap_peak_mb=%d heap_retained_mb=%d "
        + "nonheap_peak_mb=%d buffers_mb=%d rss_hwm_mb=%d", dimension, workers, density, threads, heapPeak >> 20,
        retained >> 20, nonHeapPeak >> 20, buffers >> 20, Long.parseLong(hwm) >> 10);
  }

  /** JMH's command line, e.g. {@code -p dimension=25000000 -rf json -rff driver.json}. */
  public static void main(String[] args) throws Exception {
    new Runner(new CommandLineOptions(args)).run();
  }
}
