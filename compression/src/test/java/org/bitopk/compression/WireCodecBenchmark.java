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
 * Encode and decode of a TopK message in every value format against the exact TopK selection of the same vector,
 * whose cost the wire format must not exceed. Data: seeded Gaussian coordinates, the MLP's d and 25.6M, density
 * 0.001 and 0.01. Not a test: run {@link #main} (the command is in BENCHMARKS.md); it prints ns per sent
 * coordinate and per dense element, and (encode + decode) / select.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-Xms6g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class WireCodecBenchmark {

  @Param({"242762", "25600000"})
  public int dimension;

  @Param({"0.001", "0.01"})
  public double density;

  @Param({"FP32", "FP16", "BF16", "INT8"})
  public ValueFormat format;

  float[] x;
  int k;
  SparseVector message;
  byte[] encoded;
  final TopKCompressor topK = new TopKCompressor();

  @Setup
  public void setUp() {
    x = Vectors.gaussian(dimension, 42);
    k = Density.targetK(density, dimension);
    // the message error feedback sends: TopK of x with the format's rounded values
    CompressionStep step = ErrorFeedback.disabled(dimension).step(x, 1f, topK, k, format);
    message = step.sent();
    encoded = SparseCodec.encode(message, step.valueFormat());
  }

  @Benchmark
  public byte[] encode() {
    return SparseCodec.encode(message, format);
  }

  @Benchmark
  public SparseVector decode() {
    return SparseCodec.decode(encoded);
  }

  @Benchmark
  public Selection topKSelect() {
    return topK.select(x, k);
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

  /** One row per (d, density, format): ns per sent coordinate and per element, and (encode + decode) / select. */
  static String table(Collection<RunResult> results) {
    Map<String, Map<String, Double>> rows = new TreeMap<>();
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      String method = label.substring(label.lastIndexOf('.') + 1);
      String key = String.format(Locale.ROOT, "%s|%s|%s", r.getParams().getParam("dimension"),
          r.getParams().getParam("density"), r.getParams().getParam("format"));
      rows.computeIfAbsent(key, x -> new TreeMap<>()).put(method, r.getPrimaryResult().getScore());
    }
    StringBuilder out = new StringBuilder("| d | density | values | encode ns/coordinate | decode ns/coordinate "
        + "| encode + decode ns/element | TopK select ns/element | (encode + decode) / select |\n"
        + "|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<String, Map<String, Double>> e : rows.entrySet()) {
      String[] p = e.getKey().split("\\|");
      int d = Integer.parseInt(p[0]);
      int k = Density.targetK(Double.parseDouble(p[1]), d);
      double encode = e.getValue().getOrDefault("encode", Double.NaN);
      double decode = e.getValue().getOrDefault("decode", Double.NaN);
      double select = e.getValue().getOrDefault("topKSelect", Double.NaN);
      out.append(String.format(Locale.ROOT, "| %,d | %s | %s | %.2f | %.2f | %.3f | %.3f | %.2f |%n", d, p[1], p[2],
          encode / k, decode / k, (encode + decode) / d, select / d, (encode + decode) / select));
    }
    return out.toString();
  }
}
