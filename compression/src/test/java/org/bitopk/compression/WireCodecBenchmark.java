package org.bitopk.compression;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
 * Encode and decode of a TopK message against the exact TopK selection of the same vector, whose cost the wire
 * format must not exceed: every value format in the Rice layout (the one the codec picks at these densities),
 * and the delta and bitmap layouts with fp32 values, so each format and each layout is measured without their
 * full product. Data: seeded Gaussian coordinates, the MLP's d and 25.6M, density 0.001 and 0.01. Not a test: run
 * {@link #main} (the command is in BENCHMARKS.md); the defaults (one fork, one warm-up and three measured
 * iterations of a second) take about 5 minutes for the 52 cases. It prints ns per sent coordinate and per dense
 * element, and (encode + decode) / select.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-Xms6g"})
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
public class WireCodecBenchmark {
  /** The layouts by name, as the message parameter spells them. */
  static final Map<String, Integer> LAYOUTS = Map.of("rice", SparseCodec.LAYOUT_RICE, "delta",
      SparseCodec.LAYOUT_DELTA, "bitmap", SparseCodec.LAYOUT_BITMAP);

  /** The vector TopK selects from. */
  @State(Scope.Benchmark)
  public static class Input {
    @Param({"242762", "25600000"})
    public int dimension;

    @Param({"0.001", "0.01"})
    public double density;

    float[] x;
    int k;
    final TopKCompressor topK = new TopKCompressor();

    @Setup
    public void setUp() {
      x = Vectors.gaussian(dimension, 42);
      k = Density.targetK(density, dimension);
    }
  }

  /** The message error feedback sends for the same vector, in one value format and index layout. */
  @State(Scope.Benchmark)
  public static class Message {
    @Param({"242762", "25600000"})
    public int dimension;

    @Param({"0.001", "0.01"})
    public double density;

    /** values/layout */
    @Param({"FP32/rice", "FP16/rice", "BF16/rice", "INT8/rice", "FP32/delta", "FP32/bitmap"})
    public String wire;

    SparseVector message;
    ValueFormat format;
    int layout;
    byte[] encoded;

    @Setup
    public void setUp() {
      float[] x = Vectors.gaussian(dimension, 42);
      format = ValueFormat.valueOf(wire.split("/")[0]);
      layout = LAYOUTS.get(wire.split("/")[1]);
      // the message error feedback sends: TopK of x with the format's rounded values
      CompressionStep step = ErrorFeedback.disabled(dimension).step(x, 1f, new TopKCompressor(),
          Density.targetK(density, dimension), format);
      message = step.sent();
      encoded = SparseCodec.encode(message, step.valueFormat(), layout);
    }
  }

  @Benchmark
  public byte[] encode(Message m) {
    return SparseCodec.encode(m.message, m.format, m.layout);
  }

  @Benchmark
  public SparseVector decode(Message m) {
    return SparseCodec.decode(m.encoded);
  }

  @Benchmark
  public Selection topKSelect(Input in) {
    return in.topK.select(in.x, in.k);
  }

  public static void main(String[] args) throws Exception {
    CommandLineOptions commandLine = new CommandLineOptions(args);
    OptionsBuilder options = new OptionsBuilder();
    options.parent(commandLine);
    if (commandLine.getIncludes().isEmpty()) {
      options.include(WireCodecBenchmark.class.getSimpleName());
    }
    System.out.println(table(new Runner(options.build()).run()));
  }

  /**
   * One row per (d, density, values, layout): ns per sent coordinate and per element, (encode + decode) / select
   * against the selection of the same d and density, and whether that is at most 1.
   */
  static String table(Collection<RunResult> results) {
    Map<String, Map<String, Double>> rows = new TreeMap<>();
    Map<String, Double> select = new TreeMap<>();
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      String method = label.substring(label.lastIndexOf('.') + 1);
      String shape = String.format(Locale.ROOT, "%s|%s", r.getParams().getParam("dimension"),
          r.getParams().getParam("density"));
      if (method.equals("topKSelect")) {
        select.put(shape, r.getPrimaryResult().getScore());
      } else {
        rows.computeIfAbsent(shape + "|" + r.getParams().getParam("wire"), x -> new TreeMap<>())
            .put(method, r.getPrimaryResult().getScore());
      }
    }
    StringBuilder out = new StringBuilder("| d | density | values / layout | encode ns/coordinate | decode "
        + "ns/coordinate | encode + decode ns/element | TopK select ns/element | (encode + decode) / select | "
        + "≤ select |\n|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (Map.Entry<String, Map<String, Double>> e : rows.entrySet()) {
      String[] p = e.getKey().split("\\|");
      int d = Integer.parseInt(p[0]);
      int k = Density.targetK(Double.parseDouble(p[1]), d);
      double encode = e.getValue().getOrDefault("encode", Double.NaN);
      double decode = e.getValue().getOrDefault("decode", Double.NaN);
      double selection = select.getOrDefault(p[0] + "|" + p[1], Double.NaN);
      double ratio = (encode + decode) / selection;
      out.append(String.format(Locale.ROOT, "| %,d | %s | %s | %.2f | %.2f | %.3f | %.3f | %.3f | %s |%n", d, p[1],
          p[2], encode / k, decode / k, (encode + decode) / d, selection / d, ratio,
          Double.isNaN(ratio) ? "–" : ratio <= 1 ? "yes" : "no"));
    }
    return out.toString();
  }
}
