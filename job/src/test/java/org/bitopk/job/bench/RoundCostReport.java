package org.bitopk.job.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.bitopk.lab.scale.DriverCost;
import org.bitopk.lab.scale.RoundCostModel;
import org.bitopk.lab.scale.RoundCostModel.Breakdown;
import org.bitopk.lab.scale.RoundCostModel.Scenario;
import org.bitopk.lab.scale.RoundCostModel.Scheme;

/**
 * Fits the round cost model ({@link RoundCostModel}) on the loopback grid's runs ({@code job/experiments/
 * scale-loopback.json}) with P = 2 and 8, checks it on P = 4 and 16, and prints the projection for P = 100 and 1,000
 * at d = 25M: bidirectional, unidirectional, dense, and a tree aggregation.
 *
 * <p>Arguments: the grid's output directory, then the driver's a, b (ns) and c (ms) from {@link DriverCostReport}.
 */
public final class RoundCostReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Spark's own bytes per task and round on the network lab (BENCHMARKS.md, "Bytes on the wire"). */
  private static final double SPARK_BYTES_PER_TASK = 30_000;
  private static final int MESSAGES = 4;

  private RoundCostReport() {}

  record Run(String name, Scenario scenario, double medianSeconds, double driverSeconds, double upBytesPerCoordinate,
      double downBytesPerCoordinate) {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    DriverCost driver = new DriverCost(Double.parseDouble(args[1]), Double.parseDouble(args[2]),
        Double.parseDouble(args[3]) * 1e6);
    List<Run> runs = new ArrayList<>();
    try (var points = Files.list(dir)) {
      for (Path p : points.filter(Files::isDirectory).sorted().toList()) {
        if (Files.exists(p.resolve("metrics/iterations.jsonl"))) {
          runs.add(read(p));
        }
      }
    }
    List<RoundCostModel.Measured> fitted = new ArrayList<>();
    List<RoundCostModel.Measured> held = new ArrayList<>();
    for (Run r : runs) {
      RoundCostModel.Measured m = new RoundCostModel.Measured(r.scenario(), r.medianSeconds());
      (r.scenario().workers() == 2 || r.scenario().workers() == 8 ? fitted : held).add(m);
    }
    RoundCostModel model = RoundCostModel.fit(driver, fitted);
    System.out.printf(Locale.ROOT, "fit on %d points: gamma = %.3f ns per element and worker, sigma = %.3f ms per "
        + "task, c0 = %.3f ms per round%n%n", fitted.size(), model.workerNanosPerElement(), model.nanosPerTask() / 1e6,
        model.fixedNanos() / 1e6);
    System.out.println("| point | d | P | k | set | measured ms (median) | predicted ms | error | driver in the run, ms | "
        + "driver model, ms | up B/coord | down B/coord |");
    System.out.println("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for (Run r : runs) {
      Scenario s = r.scenario();
      boolean isFit = s.workers() == 2 || s.workers() == 8;
      Breakdown b = model.predict(s);
      System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %s | %.1f | %.1f | %+.1f %% | %.1f | %.1f | %.2f | %.2f |%n",
          r.name(), s.dimension(), s.workers(), s.kUp(), isFit ? "fit" : "held out", 1e3 * r.medianSeconds(),
          1e3 * b.total(), 100 * (b.total() / r.medianSeconds() - 1), 1e3 * r.driverSeconds(), 1e3 * b.driver(),
          r.upBytesPerCoordinate(), r.downBytesPerCoordinate());
    }
    double worst = Arrays.stream(model.relativeErrors(held)).map(Math::abs).max().orElse(Double.NaN);
    System.out.printf(Locale.ROOT, "%nworst held-out error: %.1f %% (target 25 %%: %s)%n%n", 100 * worst,
        worst <= 0.25 ? "met" : "not met");
    Run reference = runs.stream().filter(r -> r.scenario().kUp() * 1000 == r.scenario().dimension())
        .max(java.util.Comparator.comparingLong(r -> r.scenario().dimension())).orElse(runs.get(0));
    projection(model, reference.upBytesPerCoordinate(), reference.downBytesPerCoordinate());
  }

  private static void projection(RoundCostModel model, double upBytes, double downBytes) {
    long d = 25_000_000;
    long k = 25_000;
    System.out.println("PROJECTION (model, not measured): d = 25M, rho = 0.001 (k = 25,000), one worker per "
        + "executor, latency 50 us, 4 messages per round, Spark's 30 KB per task, every executor fetching the "
        + "update from the driver (F = P)");
    System.out.println();
    System.out.println("| link | P | scheme | compute | uplink | driver | downlink | latency | scheduling | tree stage |"
        + " round, ms | largest term |");
    System.out.println("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (double gbit : new double[] {10, 1}) {
      for (int p : new int[] {100, 1000}) {
        int groups = (int) Math.round(Math.sqrt(p));
        Object[][] cases = {{"bidirectional", Scheme.BIDIRECTIONAL, 0.0, 1}, {"unidirectional", Scheme.UNIDIRECTIONAL,
            0.0, 1}, {"dense", Scheme.DENSE, 0.0, 1}, {"bidirectional, tree of " + groups + ", overlap 0",
            Scheme.BIDIRECTIONAL, 0.0, groups}, {"bidirectional, tree of " + groups + ", overlap 0.5",
            Scheme.BIDIRECTIONAL, 0.5, groups}};
        for (Object[] c : cases) {
          Scheme scheme = (Scheme) c[1];
          long kk = scheme == Scheme.DENSE ? d : k;
          Scenario s = new Scenario(scheme, d, p, kk, kk, p, gbit * 1e9 / 8, 50e-6, MESSAGES, upBytes, downBytes,
              SPARK_BYTES_PER_TASK, (double) c[2], (int) c[3], p);
          Breakdown b = model.predict(s);
          double[] terms = {b.compute(), b.uplink(), b.driver(), b.downlink(), b.latency(), b.scheduling(),
              b.treeStage()};
          String[] names = {"compute", "uplink", "driver", "downlink", "latency", "scheduling", "tree stage"};
          int largest = 0;
          for (int i = 1; i < terms.length; i++) {
            largest = terms[i] > terms[largest] ? i : largest;
          }
          System.out.printf(Locale.ROOT, "| %.0f Gbit/s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s |%n",
              gbit, p, c[0], ms(b.compute()), ms(b.uplink()), ms(b.driver()), ms(b.downlink()), ms(b.latency()),
              ms(b.scheduling()), ms(b.treeStage()), 1e3 * b.total(), names[largest]);
        }
      }
    }
    for (double gbit : new double[] {10, 1}) {
      int crossing = -1;
      for (int p = 1; p <= 100_000 && crossing < 0; p++) {
        Breakdown b = model.predict(new Scenario(Scheme.BIDIRECTIONAL, d, p, k, k, p, gbit * 1e9 / 8, 50e-6,
            MESSAGES, upBytes, downBytes, SPARK_BYTES_PER_TASK, 0, 1, p));
        if (b.driver() + b.uplink() + b.downlink() + b.scheduling() > b.compute()) {
          crossing = p;
        }
      }
      System.out.printf(Locale.ROOT, "%nat %.0f Gbit/s the driver's terms (driver, its link, scheduling) exceed the "
          + "workers' compute from P = %d on (bidirectional, d = 25M, rho = 0.001)%n", gbit, crossing);
    }
  }

  private static String ms(double seconds) {
    return String.format(Locale.ROOT, "%.1f", 1e3 * seconds);
  }

  private static Run read(Path point) throws IOException {
    JsonNode config = JSON.readTree(point.resolve("config.json").toFile());
    JsonNode resolved = config.path("resolved");
    long d = resolved.path("dimension").asLong();
    long k = resolved.path("large_entries_per_worker").asLong();
    int workers = config.path("workers").asInt();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(point.resolve("metrics/iterations.jsonl"))) {
      lines.add(JSON.readTree(line));
    }
    List<JsonNode> steady = lines.subList(Math.min(2, lines.size() - 1), lines.size());
    double total = median(steady.stream().mapToDouble(l -> l.path("time_total_ms").asDouble()).toArray()) / 1e3;
    double driver = median(steady.stream().mapToDouble(l -> l.path("time_aggregate_ms").asDouble()
        + l.path("time_broadcast_ms").asDouble()).toArray()) / 1e3;
    double up = steady.stream().mapToDouble(l -> l.path("up_bytes").asDouble() / l.path("up_nnz").asDouble())
        .average().orElse(Double.NaN);
    double down = steady.stream().mapToDouble(l -> l.path("down_bytes").asDouble() / l.path("down_nnz").asDouble())
        .average().orElse(Double.NaN);
    Scenario s = new Scenario(Scheme.BIDIRECTIONAL, d, workers, k, k, 2, Double.POSITIVE_INFINITY, 0, MESSAGES, up,
        down, SPARK_BYTES_PER_TASK, 0, 1, workers);
    return new Run(point.getFileName().toString(), s, total, driver, up, down);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
