package org.bitopk.job.cluster;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A small Spark application that checks the cluster harness itself: each round broadcasts a vector, every
 * task multiplies its partition by it in an executor JVM, and the driver checks the sum against the local
 * formula. Appends one line per round to {@code <out>/rounds.txt}: round, sum, the executor PIDs seen.
 * Arguments: output directory, rounds, milliseconds each task sleeps (to leave time to kill an executor).
 */
public final class ClusterProbe {

  private ClusterProbe() {
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    Path out = Files.createDirectories(Path.of(args[0]));
    int rounds = Integer.parseInt(args[1]);
    long sleepMs = Long.parseLong(args[2]);
    int partitions = 2;
    int n = 1000;
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("cluster-probe"))) {
      sc.setLogLevel("WARN");
      JavaRDD<Integer> numbers = sc.parallelize(IntStream.range(0, n).boxed().toList(), partitions).cache();
      Path progress = out.resolve("rounds.txt");
      for (int round = 0; round < rounds; round++) {
        long scale = round + 1;
        Broadcast<long[]> factor = sc.broadcast(new long[] {scale});
        List<long[]> perTask = numbers.mapPartitions(it -> {
          Thread.sleep(sleepMs);
          long sum = 0;
          while (it.hasNext()) {
            sum += it.next() * factor.value()[0];
          }
          return List.of(new long[] {sum, ProcessHandle.current().pid()}).iterator();
        }).collect();
        factor.destroy();
        long total = perTask.stream().mapToLong(r -> r[0]).sum();
        long expected = scale * (long) n * (n - 1) / 2;
        if (total != expected) {
          throw new IllegalStateException("round " + round + ": sum " + total + " != " + expected);
        }
        String pids = perTask.stream().map(r -> Long.toString(r[1])).collect(Collectors.joining(","));
        Files.writeString(progress, round + " " + total + " " + pids + "\n", StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
      Files.writeString(out.resolve("driver.pid"), Long.toString(ProcessHandle.current().pid()));
    }
  }

  /** Parses rounds.txt: per round, the executor PIDs that ran its tasks. */
  static List<List<Long>> rounds(Path out) throws IOException {
    List<List<Long>> rounds = new ArrayList<>();
    Path file = out.resolve("rounds.txt");
    if (!Files.exists(file)) {
      return rounds;
    }
    for (String line : Files.readAllLines(file)) {
      String[] parts = line.split(" ");
      List<Long> pids = new ArrayList<>();
      for (String pid : parts[2].split(",")) {
        pids.add(Long.parseLong(pid));
      }
      rounds.add(pids);
    }
    return rounds;
  }
}
