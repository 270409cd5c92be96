package org.bitopk.compression;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A companion to {@link CompressionKernelsBenchmark} for a shared, overloaded machine: the best thread CPU time per
 * element over 8 rounds of 3 calls (after 4 warm-up rounds), which leaves out the time the thread waits for a core.
 * It still includes cache and memory-bandwidth interference from other processes. Arguments: dimension (default
 * 25,600,000) and an optional comma-separated list of compressor texts, "ef" for error feedback with topk,
 * "ef:&lt;spec&gt;" for error feedback with another compressor, or "encode:&lt;spec&gt;" for a call and its
 * {@link SparseCodec} encoding (the unbiased compressors send their own values, so their call includes making them).
 */
public final class CompressionKernelsCpuTime {

  private CompressionKernelsCpuTime() {}

  public static void main(String[] args) {
    int d = args.length > 0 ? Integer.parseInt(args[0]) : 25_600_000;
    String[] specs = args.length > 1 ? args[1].split(",")
        : new String[] {"topk", "ef", "gaussiank", "sidco-e", "sidco-e:stages=3", "sidco-gp", "sidco-gamma-gp", "dgc",
            "randomk", "threshold:tau=3.3"};
    float[] x = Vectors.gaussian(d, 42);
    int k = Density.targetK(0.001, d);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (String spec : specs) {
      boolean feedback = spec.equals("ef") || spec.startsWith("ef:");
      boolean encode = spec.startsWith("encode:");
      String text = spec.equals("ef") ? "topk" : feedback || encode ? spec.substring(spec.indexOf(':') + 1) : spec;
      Compressor compressor = CompressorSpec.parse(text).create(1);
      ErrorFeedback ef = ErrorFeedback.enabled(d);
      double best = Double.MAX_VALUE;
      long sink = 0;
      for (int round = 0; round < 12; round++) {
        long start = threads.getCurrentThreadCpuTime();
        for (int call = 0; call < 3; call++) {
          if (feedback) {
            sink += ef.step(x, 0.01f, compressor, k).achievedK();
          } else if (encode) {
            SparseVector sent = compressor instanceof ValueCompressor ? ((ValueCompressor) compressor).compress(x, k)
                : SparseVector.gather(x, compressor.select(x, k));
            sink += SparseCodec.encode(sent, ValueFormat.FP32).length;
          } else {
            sink += compressor.select(x, k).achievedK();
          }
        }
        long end = threads.getCurrentThreadCpuTime();
        if (round >= 4) {
          best = Math.min(best, (end - start) / 3.0 / d);
        }
      }
      System.err.println("(checksum " + sink + ")");
      System.out.printf("| %s | %.3f |%n", spec.equals("ef") ? "topk + error feedback"
          : feedback ? text + " + error feedback" : encode ? text + " + encode" : spec, best);
    }
  }
}
