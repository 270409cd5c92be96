package org.bitopk.compression;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Time per element of every compressor, of error feedback with exact TopK, and of three baselines on the same data
 * in the same run: {@code Arrays.sort} of |x| (the textbook way to a threshold), a k-element heap
 * ({@code PriorityQueue}) and ND4J's sort with indices of |x| (what a DL4J-based implementation would call). One
 * thread; ND4J runs with OMP_NUM_THREADS=1 (set by the exec command) so the comparison is per core.
 *
 * <p>Data: Gaussian coordinates (seeded), d = 242,762 (the LeNet-sized model), 1.2M and 25.6M (ResNet-50-sized),
 * density 0.001. Not a test: surefire does not pick it up; run it with the command in BENCHMARKS.md, which calls
 * {@link #main}: JMH, then a Markdown table of ns/element and speed-ups against each baseline.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g", "-Xms8g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class CompressionKernelsBenchmark {

  @Param({"242762", "1200000", "25600000"})
  public int dimension;

  @Param({"0.001"})
  public double density;

  float[] x;
  float[] scratch;
  int k;
  float tau;
  final Compressor topK = new TopKCompressor();
  final Compressor gaussianK = new GaussianKCompressor();
  final Compressor sidcoE = CompressorSpec.parse("sidco-e").create(1);
  final Compressor sidcoGp = CompressorSpec.parse("sidco-gp").create(1);
  final Compressor sidcoGammaGp = CompressorSpec.parse("sidco-gamma-gp").create(1);
  final Compressor sidcoE3 = CompressorSpec.parse("sidco-e:stages=3").create(1);
  final Compressor dgc = new DgcCompressor(1);
  final Compressor randomK = new RandomKCompressor(1);
  final ValueCompressor randomKScaled = new ScaledRandomKCompressor(1);
  final ValueCompressor natural = new NaturalCompressor(1);
  ErrorFeedback naturalFeedback;
  Compressor threshold;
  ErrorFeedback errorFeedback;

  @Setup
  public void setUp() {
    x = Vectors.gaussian(dimension, 42);
    scratch = new float[dimension];
    k = Density.targetK(density, dimension);
    int[] top = new TopKCompressor().select(x, k).indices();
    float kth = Float.POSITIVE_INFINITY;
    for (int i : top) {
      kth = Math.min(kth, Math.abs(x[i]));
    }
    tau = Math.nextDown(kth); // selects exactly the top k: a fixed threshold at its best
    threshold = new ThresholdCompressor(tau);
    errorFeedback = ErrorFeedback.enabled(dimension);
    naturalFeedback = ErrorFeedback.enabled(dimension);
  }

  @Benchmark
  public Selection topK() {
    return topK.select(x, k);
  }

  /** The worker's whole step: c = residual + lr·g with ‖c‖ and the NaN check, exact TopK, gather and zero. */
  @Benchmark
  public CompressionStep topKWithErrorFeedback() {
    return errorFeedback.step(x, 0.01f, topK, k);
  }

  @Benchmark
  public Selection gaussianK() {
    return gaussianK.select(x, k);
  }

  @Benchmark
  public Selection sidcoE() {
    return sidcoE.select(x, k);
  }

  @Benchmark
  public Selection sidcoE3Stages() {
    return sidcoE3.select(x, k);
  }

  @Benchmark
  public Selection sidcoGp() {
    return sidcoGp.select(x, k);
  }

  @Benchmark
  public Selection sidcoGammaGp() {
    return sidcoGammaGp.select(x, k);
  }

  @Benchmark
  public Selection dgc() {
    return dgc.select(x, k);
  }

  @Benchmark
  public Selection randomK() {
    return randomK.select(x, k);
  }

  /** d/k-scaled Random-k: the selection plus the k scaled values. */
  @Benchmark
  public SparseVector randomKScaled() {
    return randomKScaled.compress(x, k);
  }

  /** Natural compression: one random draw and a bit operation per coordinate, dense output. */
  @Benchmark
  public SparseVector natural() {
    return natural.compress(x, k);
  }

  /** Natural compression with its error feedback (residual c − C(c) at every coordinate). */
  @Benchmark
  public CompressionStep naturalWithErrorFeedback() {
    return naturalFeedback.step(x, 0.01f, natural, k);
  }

  /** Natural compression and its 9-bit wire encoding. */
  @Benchmark
  public byte[] naturalEncoded() {
    return SparseCodec.encode(natural.compress(x, k), ValueFormat.FP32);
  }

  @Benchmark
  public Selection threshold() {
    return threshold.select(x, k);
  }

  /** Baseline: sort all magnitudes; the k-th largest is then at d − k. */
  @Benchmark
  public float baselineSortAbs() {
    float[] a = scratch;
    for (int i = 0; i < a.length; i++) {
      a[i] = Math.abs(x[i]);
    }
    java.util.Arrays.sort(a);
    return a[a.length - k];
  }

  /** Baseline: a min-heap of the k largest magnitudes seen so far. */
  @Benchmark
  public float baselineHeap() {
    PriorityQueue<Float> heap = new PriorityQueue<>(k + 1);
    for (float v : x) {
      float a = Math.abs(v);
      if (heap.size() < k) {
        heap.add(a);
      } else if (a > heap.peek()) {
        heap.poll();
        heap.add(a);
      }
    }
    return heap.peek();
  }

  /** ND4J's data, in its own state so the other benchmarks do not load ND4J. */
  @State(Scope.Benchmark)
  public static class Nd4jData {
    INDArray array;
    int k;

    @Setup
    public void setUp(CompressionKernelsBenchmark data) {
      array = Nd4j.createFromArray(data.x);
      k = data.k;
    }
  }

  /**
   * Baseline: ND4J's path to the top k, {@code Nd4j.sortWithIndices} of |x| in descending order (the first k
   * indices are the answer), the abs included as in every other kernel. ND4J's {@code top_k} custom op was measured
   * too but grows with d·k (about 0.5 µs per element at d = 242,762 and 1-2 µs at 1.2M), which would make one
   * operation at 25.6M take minutes; see BENCHMARKS.md.
   */
  @Benchmark
  @Warmup(iterations = 1)
  @Measurement(iterations = 2)
  public INDArray[] baselineNd4jSort(Nd4jData nd) {
    INDArray abs = Transforms.abs(nd.array, true);
    return Nd4j.sortWithIndices(abs, 0, false);
  }

  /** Runs the benchmarks (extra JMH command-line options are honoured) and prints the Markdown table. */
  public static void main(String[] args) throws Exception {
    CommandLineOptions commandLine = new CommandLineOptions(args);
    OptionsBuilder options = new OptionsBuilder();
    options.parent(commandLine);
    if (commandLine.getIncludes().isEmpty()) {
      options.include(CompressionKernelsBenchmark.class.getSimpleName());
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    System.out.println(table(results));
  }

  static String table(Collection<RunResult> results) {
    Map<String, Map<Integer, double[]>> byMethod = new TreeMap<>();
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      String method = label.substring(label.lastIndexOf('.') + 1);
      int d = Integer.parseInt(r.getParams().getParam("dimension"));
      double nsPerOp = r.getPrimaryResult().getScore();
      double error = r.getPrimaryResult().getScoreError();
      byMethod.computeIfAbsent(method, m -> new TreeMap<>()).put(d, new double[] {nsPerOp / d, error / d});
    }
    java.util.List<Integer> dims = new ArrayList<>();
    byMethod.values().forEach(m -> m.keySet().forEach(d -> {
      if (!dims.contains(d)) {
        dims.add(d);
      }
    }));
    dims.sort(null);
    StringBuilder out = new StringBuilder();
    out.append("| kernel |");
    for (int d : dims) {
      out.append(String.format(Locale.ROOT, " d = %,d: ns/element | speed-up vs sort / heap / ND4J |", d));
    }
    out.append('\n').append("|---|");
    for (int i = 0; i < dims.size(); i++) {
      out.append("---:|---:|");
    }
    out.append('\n');
    for (Map.Entry<String, Map<Integer, double[]>> e : byMethod.entrySet()) {
      out.append("| ").append(e.getKey()).append(" |");
      for (int d : dims) {
        double[] v = e.getValue().get(d);
        if (v == null) {
          out.append(" – | – |");
          continue;
        }
        out.append(String.format(Locale.ROOT, " %.3f ± %.3f | %s / %s / %s |", v[0], v[1],
            ratio(byMethod, "baselineSortAbs", d, v[0]), ratio(byMethod, "baselineHeap", d, v[0]),
            ratio(byMethod, "baselineNd4jSort", d, v[0])));
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String ratio(Map<String, Map<Integer, double[]>> byMethod, String baseline, int d, double value) {
    Map<Integer, double[]> base = byMethod.get(baseline);
    if (base == null || base.get(d) == null) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.1f×", base.get(d)[0] / value);
  }
}
