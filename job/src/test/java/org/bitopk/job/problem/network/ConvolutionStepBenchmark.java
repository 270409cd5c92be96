package org.bitopk.job.problem.network;

import java.util.Collection;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
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
 * One worker step of the Fashion-MNIST CNN ({@code cnn-bn}, a minibatch of 10: forward, loss, backward), with
 * DL4J's convolution layer (the baseline) and with {@link DirectIm2colConvolution}, in the same JVM; and, for the
 * second convolution (input 10×16×14×14, 32 filters of 5×5, pad 2), each replaced kernel alone against DL4J's way
 * of calling it: im2col and the input gradient's matrix product. {@link #main} prints the times and the
 * speed-ups. One thread, {@code OMP_NUM_THREADS=1}: an executor's task. Run with
 * {@code job/bench/conv.sh}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class ConvolutionStepBenchmark {
  @Param({"10"})
  public int batch;

  private MultiLayerNetwork dl4j;
  private MultiLayerNetwork direct;
  private INDArray secondConvolutionInput;
  private INDArray w2d;
  private INDArray delta2d;

  @Setup
  public void setUp() {
    dl4j = new MultiLayerNetwork(ModelArchitecture.CNN_BN.build(1, 1, 28, 28, 10));
    dl4j.init();
    direct = new MultiLayerNetwork(DirectIm2colConvolutionLayer.substitute(
        ModelArchitecture.CNN_BN.build(1, 1, 28, 28, 10)));
    direct.init();
    Random r = new Random(7);
    float[] pixels = new float[batch * 784];
    for (int i = 0; i < pixels.length; i++) {
      pixels[i] = r.nextFloat();
    }
    INDArray x = Nd4j.create(pixels, new long[] {batch, 784}, 'c');
    INDArray labels = Nd4j.zeros(DataType.FLOAT, batch, 10);
    for (int i = 0; i < batch; i++) {
      labels.putScalar(i, i % 10, 1f);
    }
    for (MultiLayerNetwork net : new MultiLayerNetwork[] {dl4j, direct}) {
      net.setInput(x);
      net.setLabels(labels);
    }
    secondConvolutionInput = Nd4j.rand(DataType.FLOAT, batch, 16, 14, 14);
    w2d = Nd4j.rand(DataType.FLOAT, 32, 16, 5, 5).permute(3, 2, 1, 0).reshape('f', 400, 32);
    delta2d = Nd4j.rand(DataType.FLOAT, 32, batch * 196L);
  }

  @Benchmark
  public double stepDl4jConvolution() {
    dl4j.computeGradientAndScore();
    return dl4j.score();
  }

  @Benchmark
  public double stepDirectIm2col() {
    direct.computeGradientAndScore();
    return direct.score();
  }

  @Benchmark
  public INDArray im2colNd4jPermutedView() {
    INDArray col = Nd4j.createUninitialized(DataType.FLOAT, new long[] {batch, 14, 14, 16, 5, 5}, 'c');
    org.nd4j.linalg.convolution.Convolution.im2col(secondConvolutionInput, 5, 5, 1, 1, 2, 2, 1, 1, false,
        col.permute(0, 3, 4, 5, 1, 2));
    return col;
  }

  @Benchmark
  public INDArray im2colDirect() {
    return DirectIm2colConvolution.im2col(secondConvolutionInput, 14, 14, 5, 5, new int[] {1, 1},
        new int[] {2, 2}, new int[] {1, 1});
  }

  @Benchmark
  public INDArray inputGradientProductMmul() {
    return w2d.mmul(delta2d);
  }

  @Benchmark
  public INDArray inputGradientProductGemm() {
    INDArray out = Nd4j.createUninitialized(DataType.FLOAT, new long[] {400, batch * 196L}, 'f');
    Nd4j.gemm(w2d, delta2d, out, false, false, 1.0, 0.0);
    return out;
  }

  public static void main(String[] args) throws Exception {
    CommandLineOptions commandLine = new CommandLineOptions(args);
    OptionsBuilder options = new OptionsBuilder();
    options.parent(commandLine);
    if (commandLine.getIncludes().isEmpty()) {
      options.include(ConvolutionStepBenchmark.class.getSimpleName());
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    TreeMap<String, double[]> ms = new TreeMap<>();
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      ms.put(label.substring(label.lastIndexOf('.') + 1),
          new double[] {r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()});
    }
    StringBuilder out = new StringBuilder("| kernel | ms/op | ± (99.9 %) | speed-up vs DL4J's way |\n|---|---:|---:|---:|\n");
    row(out, ms, "stepDl4jConvolution", "stepDl4jConvolution");
    row(out, ms, "stepDirectIm2col", "stepDl4jConvolution");
    row(out, ms, "im2colNd4jPermutedView", "im2colNd4jPermutedView");
    row(out, ms, "im2colDirect", "im2colNd4jPermutedView");
    row(out, ms, "inputGradientProductMmul", "inputGradientProductMmul");
    row(out, ms, "inputGradientProductGemm", "inputGradientProductMmul");
    System.out.println(out);
  }

  private static void row(StringBuilder out, TreeMap<String, double[]> ms, String name, String baseline) {
    double[] v = ms.get(name);
    double[] b = ms.get(baseline);
    if (v == null) {
      return;
    }
    out.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %s |%n", name, v[0], v[1],
        b == null ? "–" : String.format(Locale.ROOT, "%.2f×", b[0] / v[0])));
  }
}
