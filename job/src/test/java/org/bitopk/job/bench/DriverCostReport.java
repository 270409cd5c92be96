package org.bitopk.job.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bitopk.lab.scale.DriverCost;

/**
 * Reads {@code job/bench/driver.sh}'s output directory (JMH's JSON results and the forks' {@code driver-memory}
 * lines) and prints BENCHMARKS.md's tables: each point's time per round (per count of the driver's aggregation
 * threads, and against one thread), per dense element and per received coordinate, the fit t = a·P·k + b·d + c on
 * the single-thread points with each one's residual, the check for a super-linear term, the memory high-water marks,
 * and the target at d = 25M, P = 256, ρ = 0.001 against two memory passes over d.
 */
public final class DriverCostReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern MEMORY = Pattern.compile("driver-memory d=(\\d+) P=(\\d+) rho=(\\S+)"
      + "(?: threads=(\\d+))? "
      + "heap_peak_mb=(\\d+) heap_retained_mb=(\\d+) nonheap_peak_mb=(\\d+) buffers_mb=(\\d+) rss_hwm_mb=(\\d+)");

  private DriverCostReport() {}

  record Timed(long dimension, int workers, double density, int threads, double millis, double error) {
    long k() {
      return Math.round(density * dimension);
    }

    String point() {
      return dimension + "/" + workers + "/" + density;
    }

    String key() {
      return point() + "/" + threads;
    }
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "runs/driver-bench");
    List<Timed> rounds = new ArrayList<>();
    Map<Long, Double> passes = new HashMap<>();
    Map<String, String> memory = new HashMap<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".json")) {
          for (JsonNode r : JSON.readTree(f.toFile())) {
            JsonNode p = r.path("params");
            Timed t = new Timed(p.path("dimension").asLong(), p.path("workers").asInt(),
                p.path("density").asDouble(), p.path("threads").asInt(1),
                r.path("primaryMetric").path("score").asDouble(),
                r.path("primaryMetric").path("scoreError").asDouble());
            if (r.path("benchmark").asText().endsWith(".memoryPass")) {
              passes.put(t.dimension(), t.millis());
            } else {
              rounds.add(t);
            }
          }
        } else if (name.endsWith(".log")) {
          for (String line : Files.readAllLines(f)) {
            Matcher m = MEMORY.matcher(line);
            if (m.find()) {
              memory.put(m.group(1) + "/" + m.group(2) + "/" + Double.parseDouble(m.group(3)) + "/"
                  + (m.group(4) == null ? "1" : m.group(4)),
                  String.format(Locale.ROOT, "%s | %s | %s | %s", m.group(5), m.group(6), m.group(7), m.group(9)));
            }
          }
        }
      }
    }
    rounds.sort(java.util.Comparator.comparingLong(Timed::dimension).thenComparingInt(Timed::workers)
        .thenComparingDouble(Timed::density).thenComparingInt(Timed::threads));
    // a, b and c are one thread's constants: the fit takes the single-thread points, and needs two d to separate b, c
    List<Timed> single = rounds.stream().filter(t -> t.threads() == 1).toList();
    List<DriverCost.Point> points = single.stream()
        .map(t -> new DriverCost.Point(t.dimension(), t.workers(), t.k(), t.millis() * 1e6)).toList();
    DriverCost c = null;
    Map<Timed, Double> residuals = new HashMap<>();   // the fit's own relative error at each single-thread point
    if (single.stream().mapToLong(Timed::dimension).distinct().count() >= 2) {
      DriverCost.Fit fit = DriverCost.fit(points);
      c = fit.cost();
      for (int i = 0; i < single.size(); i++) {
        residuals.put(single.get(i), fit.relativeErrors()[i]);
      }
      System.out.printf(Locale.ROOT, "fit (one thread): a = %.3f ns per received coordinate, b = %.3f ns per "
          + "element, c = %.3f ms; worst residual %.1f %%%n", c.nanosPerReceivedCoordinate(), c.nanosPerElement(),
          c.fixedNanos() / 1e6, 100 * fit.worstRelativeError());
      double[] extrapolated = DriverCost.extrapolationErrors(points);
      System.out.printf(Locale.ROOT, "super-linear check: fitted on the smaller d, the largest d's points are "
          + "predicted with errors %s%n", Arrays.stream(extrapolated)
          .mapToObj(e -> String.format(Locale.ROOT, "%+.1f %%", 100 * e)).toList());
    } else {
      System.out.println("fit: not made (the single-thread points cover fewer than two d)");
    }
    Map<String, Double> oneThread = new HashMap<>();
    single.forEach(t -> oneThread.put(t.point(), t.millis()));
    System.out.println();
    System.out.println("| d | P | ρ | k | P·k | threads | ms per round (± 99.9 %) | one thread / this "
        + "| ns per dense element | ns per received coordinate | fit, ms | residual | heap peak MB | heap retained MB "
        + "| non-heap peak MB | RSS high-water MB |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (Timed t : rounds) {
      long received = (long) t.workers() * t.k();
      Double one = oneThread.get(t.point());
      String fitted = "– | –";
      if (residuals.containsKey(t)) {
        fitted = String.format(Locale.ROOT, "%.2f | %+.1f %%", c.nanos(t.workers(), t.k(), t.dimension()) / 1e6,
            100 * residuals.get(t));
      }
      System.out.printf(Locale.ROOT, "| %s | %d | %s | %d | %s | %d | %.2f ± %.2f | %s | %.2f | %.2f | %s | %s |%n",
          millions(t.dimension()), t.workers(), t.density(), t.k(), millions(received), t.threads(), t.millis(),
          t.error(), one == null ? "–" : String.format(Locale.ROOT, "%.2f", one / t.millis()),
          t.millis() * 1e6 / t.dimension(), t.millis() * 1e6 / received, fitted,
          memory.getOrDefault(t.key(), "– | – | – | –"));
    }
    System.out.println();
    System.out.println("| d | memory pass (copy of d floats), ms | 2 passes, ms |");
    System.out.println("|---:|---:|---:|");
    passes.keySet().stream().sorted().forEach(d -> System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n",
        millions(d), passes.get(d), 2 * passes.get(d)));
    rounds.stream().filter(t -> t.dimension() == 25_000_000 && t.workers() == 256 && t.density() == 0.001)
        .forEach(t -> {
          Double pass = passes.get(t.dimension());
          System.out.printf(Locale.ROOT, "%ntarget at d = 25M, P = 256, rho = 0.001: %.2f ms per round against 2 "
              + "memory passes %s ms on %d thread(s): %s%n", t.millis(), pass == null ? "(not measured)"
                  : String.format(Locale.ROOT, "%.2f", 2 * pass), t.threads(),
              pass == null ? "unknown" : t.millis() < 2 * pass ? "met" : String.format(Locale.ROOT,
                  "not met (%.1fx one pass)", t.millis() / pass));
        });
  }

  private static String millions(long v) {
    return v % 1_000_000 == 0 ? (v / 1_000_000) + "M" : v % 1000 == 0 ? (v / 1000) + "k" : Long.toString(v);
  }
}
