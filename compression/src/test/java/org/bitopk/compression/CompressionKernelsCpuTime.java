package org.bitopk.compression;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A companion to {@link CompressionKernelsBenchmark} for a shared, overloaded machine: the best thread CPU time per
 * element over 8 rounds of 3 calls (after 4 warm-up rounds), which leaves out the time the thread waits for a core.
 * It still includes cache and memory-bandwidth interference from other processes. Arguments: dimension (default
 * 25,600,000) and an optional comma-separated list of compressor texts, or "ef" for error feedback with topk.
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
      boolean feedback = spec.equals("ef");
      Compressor compressor = CompressorSpec.parse(feedback ? "topk" : spec).create(1);
      ErrorFeedback ef = ErrorFeedback.enabled(d);
      double best = Double.MAX_VALUE;
      long sink = 0;
      for (int round = 0; round < 12; round++) {
        long start = threads.getCurrentThreadCpuTime();
        for (int call = 0; call < 3; call++) {
          sink += feedback ? ef.step(x, 0.01f, compressor, k).achievedK() : compressor.select(x, k).achievedK();
        }
        long end = threads.getCurrentThreadCpuTime();
        if (round >= 4) {
          best = Math.min(best, (end - start) / 3.0 / d);
        }
      }
      System.err.println("(checksum " + sink + ")");
      System.out.printf("| %s | %.3f |%n", feedback ? "topk + error feedback" : spec, best);
    }
  }
}
