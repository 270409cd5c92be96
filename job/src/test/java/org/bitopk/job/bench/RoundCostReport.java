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
import java.util.Set;
import org.bitopk.lab.scale.DriverCost;
import org.bitopk.lab.scale.LabRound;
import org.bitopk.lab.scale.RoundCostModel;
import org.bitopk.lab.scale.RoundCostModel.Breakdown;
import org.bitopk.lab.scale.RoundCostModel.Measured;
import org.bitopk.lab.scale.RoundCostModel.Scenario;
import org.bitopk.lab.scale.RoundCostModel.Scheme;

/**
 * Fits the round cost model ({@link RoundCostModel}) on measured rounds, checks it on the rounds it did not see and
 * prints the projection for P = 100 and 1,000 at d = 25M: bidirectional, unidirectional, dense, and a tree
 * aggregation.
 *
 * <ul>
 *   <li>{@code --lab DIR A B C}: the network lab's points ({@code job/bench/scale-lab.sh}): each round split into
 *       compute, driver, uplink transfer, fan-out and the rest, the bytes leaving the driver, the fit on the points
 *       of {@link #LAB_FIT} and the check on the others.
 *   <li>{@code DIR A B C}: the loopback grid ({@code job/experiments/scale-loopback.json}), fitted on P = 2 and 8,
 *       checked on P = 4 and 16.
 * </ul>
 *
 * <p>A, B, C: the driver's a, b (ns) and c (ms) from {@link DriverCostReport}.
 */
public final class RoundCostReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MESSAGES = 4;
  /** The lab's points the model is fitted on; the others are held out. */
  static final Set<String> LAB_FIT = Set.of("100mbit-bi-p4", "100mbit-bi-p16", "100mbit-bi-p64", "1gbit-bi-p4",
      "1gbit-bi-p16", "1gbit-bi-p64", "100mbit-bi-p16-t16");
  /**
   * Spark's bytes out of the driver per task beyond the update: the task launch (9.2 KB) and the task binary
   * beyond the update (5.5 KB), taken apart message by message (BENCHMARKS.md, "Bytes on the wire"). The lab's
   * own counters cannot separate it from the copies of the update, which TorrentBroadcast varies between 1 and
   * the executors.
   */
  static final double SPARK_DOWN_BYTES_PER_TASK = 14_700;
  /** The lab's executors share the machine's 2 cores: two workers compute at once. */
  static final int LAB_SLOTS = 2;
  /** fp32 bytes per coordinate at rho = 0.001 (BENCHMARKS.md, "Wire format: bytes per coordinate"). */
  private static final double UP_BYTES = 5.435;
  private static final double DOWN_BYTES = 5.464;

  private RoundCostReport() {}

  public static void main(String[] args) throws IOException {
    boolean lab = args.length == 5 && args[0].equals("--lab");
    if (!lab && args.length != 4) {
      System.err.println("bitopk: usage: RoundCostReport [--lab] DIR A_NS B_NS C_MS");
      System.exit(2);
    }
    int at = lab ? 1 : 0;
    DriverCost driver = new DriverCost(Double.parseDouble(args[at + 1]), Double.parseDouble(args[at + 2]),
        Double.parseDouble(args[at + 3]) * 1e6);
    System.out.printf(Locale.ROOT, "driver: a = %s ns per received coordinate, b = %s ns per element, c = %s ms%n%n",
        args[at + 1], args[at + 2], args[at + 3]);
    if (lab) {
      lab(Path.of(args[1]), driver);
    } else {
      loopback(Path.of(args[0]), driver);
    }
  }

  private static void lab(Path dir, DriverCost driver) throws IOException {
    List<LabRound> rounds = LabRound.readAll(dir);
    System.out.println("ROUND SPLIT (medians of rounds 3 on; transfers = the driver's frames per round / link rate)");
    System.out.println();
    System.out.println("| point | link | scheme | P | tasks | round ms | compute | driver | uplink transfer | fan-out | "
        + "rest (Spark) | Spark scheduler delay / deserialize per task |");
    System.out.println("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (LabRound r : rounds) {
      System.out.printf(Locale.ROOT, "| %s | %s | %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f / %.0f |%n",
          r.name(), rate(r.rateBitsPerSecond()), scheme(r.scheme()), r.workers(), r.tasks(), r.roundMillis(),
          r.computeMillis(), r.driverMillis(), r.uplinkTransferMillis(), r.fanOutMillis(), r.restMillis(),
          r.schedulerDelayMillis(), r.deserializeMillis());
    }
    List<LabRound> fit = rounds.stream().filter(r -> LAB_FIT.contains(r.name())).toList();
    if (fit.size() < 4) {
      throw new IllegalArgumentException(dir + ": " + fit.size() + " of the fit points " + LAB_FIT + " measured");
    }
    double sparkUp = median(fit.stream().mapToDouble(LabRound::sparkUpBytesPerTask).toArray());
    double sparkDown = SPARK_DOWN_BYTES_PER_TASK;
    System.out.printf(Locale.ROOT, "%nSpark's bytes per task through the driver's link beyond the job's: %.0f B in "
        + "(median of the fit points), %.0f B out (the task launch and the task binary beyond the update, measured "
        + "message by message)%n%n", sparkUp, sparkDown);
    System.out.println("FAN-OUT: bytes leaving the driver per round");
    System.out.println();
    System.out.println("| point | P | executors | tasks | update D, bytes | driver sent per round | executors x D | "
        + "copies of D leaving the driver |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (LabRound r : rounds) {
      System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %.0f | %.0f | %.0f | %.2f |%n", r.name(), r.workers(),
          r.executors(), r.tasks(), r.downBytes(), r.driverSentBytes(), r.broadcastReceivers() * r.downBytes(),
          r.copiesLeavingDriver(sparkDown));
    }

    List<Measured> fitted = new ArrayList<>();
    List<Measured> held = new ArrayList<>();
    for (LabRound r : rounds) {
      (LAB_FIT.contains(r.name()) ? fitted : held).add(measured(r, sparkUp, sparkDown));
    }
    RoundCostModel model = RoundCostModel.fit(driver, fitted);
    printConstants(model, fitted.size(), "slots = " + LAB_SLOTS + " (the machine's cores)");
    System.out.println("| point | set | measured ms | predicted ms | error | compute | uplink | driver | downlink |"
        + " scheduling |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (LabRound r : rounds) {
      Breakdown b = model.predict(measured(r, sparkUp, sparkDown).scenario());
      System.out.printf(Locale.ROOT, "| %s | %s | %.0f | %.0f | %+.1f %% | %s | %s | %s | %s | %s |%n", r.name(),
          LAB_FIT.contains(r.name()) ? "fit" : "held out", r.roundMillis(), 1e3 * b.total(),
          100 * (1e3 * b.total() / r.roundMillis() - 1), ms(b.compute()), ms(b.uplink()), ms(b.driver()),
          ms(b.downlink()), ms(b.scheduling()));
    }
    printCheck(model, held);
    projection(model, sparkUp, sparkDown);
  }

  private static Measured measured(LabRound r, double sparkUp, double sparkDown) {
    return new Measured(r.scenario(LAB_SLOTS, sparkUp, sparkDown), r.roundMillis() / 1e3);
  }

  private static void printConstants(RoundCostModel model, int points, String setting) {
    System.out.printf(Locale.ROOT, "%nFIT on %d points (%s): gamma = %.3f ns per element and worker, sigma = %.3f ms "
        + "per task, c0 = %.3f ms per round%n%n", points, setting, model.workerNanosPerElement(),
        model.nanosPerTask() / 1e6, model.fixedNanos() / 1e6);
  }

  private static void printCheck(RoundCostModel model, List<Measured> held) {
    double[] errors = model.relativeErrors(held);
    double worst = Arrays.stream(errors).map(Math::abs).max().orElse(Double.NaN);
    System.out.printf(Locale.ROOT, "%nworst held-out error: %.1f %% over %d points (target 25 %% on every one: %s)%n%n",
        100 * worst, held.size(), worst <= 0.25 ? "met" : "not met");
  }

  private static void loopback(Path dir, DriverCost driver) throws IOException {
    List<String> names = new ArrayList<>();
    List<Measured> runs = new ArrayList<>();
    try (var points = Files.list(dir)) {
      for (Path p : points.filter(Files::isDirectory).sorted().toList()) {
        if (Files.exists(p.resolve("metrics/iterations.jsonl"))) {
          names.add(p.getFileName().toString());
          runs.add(readLoopback(p));
        }
      }
    }
    List<Measured> fitted = new ArrayList<>();
    List<Measured> held = new ArrayList<>();
    for (Measured m : runs) {
      (isLoopbackFit(m) ? fitted : held).add(m);
    }
    RoundCostModel model = RoundCostModel.fit(driver, fitted);
    printConstants(model, fitted.size(), "local[2], slots = 2");
    System.out.println("| point | d | P | k | set | measured ms (median) | predicted ms | error | driver model, ms |");
    System.out.println("|---|---:|---:|---:|---|---:|---:|---:|---:|");
    for (int i = 0; i < runs.size(); i++) {
      Scenario s = runs.get(i).scenario();
      Breakdown b = model.predict(s);
      System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %s | %.1f | %.1f | %+.1f %% | %.1f |%n", names.get(i),
          s.dimension(), s.workers(), s.kUp(), isLoopbackFit(runs.get(i)) ? "fit" : "held out",
          1e3 * runs.get(i).seconds(), 1e3 * b.total(), 100 * (b.total() / runs.get(i).seconds() - 1),
          1e3 * b.driver());
    }
    printCheck(model, held);
  }

  private static boolean isLoopbackFit(Measured m) {
    return m.scenario().workers() == 2 || m.scenario().workers() == 8;
  }

  /**
   * The model at cluster scale: one worker per executor (T = P tasks, every executor fetching the update from the
   * driver, F = P), a core per worker, 50 us one way, Spark's bytes per task as measured on the lab.
   */
  private static void projection(RoundCostModel model, double sparkUp, double sparkDown) {
    long d = 25_000_000;
    long k = 25_000;
    System.out.printf(Locale.ROOT, "PROJECTION (the model, not measured): d = 25M, rho = 0.001 (k = 25,000) up and "
        + "down, one worker per executor with a core each (P tasks, F = P copies of the update), latency 50 us, "
        + "%d messages per round, %.2f / %.2f bytes per coordinate up / down, Spark's %.0f B in and %.0f B out "
        + "per task%n%n", MESSAGES, UP_BYTES, DOWN_BYTES, sparkUp, sparkDown);
    System.out.println("| link | P | scheme | compute | uplink | driver | downlink | latency | scheduling | tree stage |"
        + " round, ms | largest term |");
    System.out.println("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (double gbit : new double[] {10, 1}) {
      for (int p : new int[] {100, 1000}) {
        int groups = (int) Math.round(Math.sqrt(p));
        Object[][] cases = {{"bidirectional", Scheme.BIDIRECTIONAL, 0.0, 1},
            {"unidirectional", Scheme.UNIDIRECTIONAL, 0.0, 1}, {"dense", Scheme.DENSE, 0.0, 1},
            {"bidirectional, tree of " + groups + ", overlap 0", Scheme.BIDIRECTIONAL, 0.0, groups},
            {"bidirectional, tree of " + groups + ", overlap 0.5", Scheme.BIDIRECTIONAL, 0.5, groups}};
        for (Object[] c : cases) {
          Scheme scheme = (Scheme) c[1];
          Breakdown b = model.predict(cluster(scheme, d, scheme == Scheme.DENSE ? d : k, p, gbit, (double) c[2],
              (int) c[3], sparkUp, sparkDown));
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
    for (double overlap : new double[] {0.5, 0.9}) {
      // the lab's largest point: d = 1M, k = 10,000, P = 64 on 4 executors, 100 Mbit/s, 2 cores
      Scenario flat = new Scenario(Scheme.BIDIRECTIONAL, 1_000_000, 64, 10_000, 10_000, LAB_SLOTS, 100e6 / 8, 0,
          MESSAGES, 5.0, 5.0, 4, sparkUp, sparkDown, overlap, 1, 4);
      Scenario tree = new Scenario(Scheme.BIDIRECTIONAL, 1_000_000, 64, 10_000, 10_000, LAB_SLOTS, 100e6 / 8, 0,
          MESSAGES, 5.0, 5.0, 4, sparkUp, sparkDown, overlap, 4, 4);
      Breakdown f = model.predict(flat);
      Breakdown t = model.predict(tree);
      System.out.printf(Locale.ROOT, "%nON THE LAB (d = 1M, k = 10,000, P = 64, a tree over the 4 executors, 100 Mbit/s,"
          + " overlap %.1f): the tree saves %.1f ms of the driver and its uplink and costs a stage of %.1f ms%n",
          overlap, 1e3 * (f.driver() + f.uplink() - t.driver() - t.uplink()), 1e3 * t.treeStage());
    }
    crossings(model, "with the fitted sigma", sparkUp, sparkDown);
    crossings(new RoundCostModel(model.driver(), model.workerNanosPerElement(), 0, model.fixedNanos()),
        "with sigma = 0 (Spark's per-task cost left out: the floor)", sparkUp, sparkDown);
  }

  private static void crossings(RoundCostModel model, String label, double sparkUp, double sparkDown) {
    long d = 25_000_000;
    long k = 25_000;
    System.out.printf(Locale.ROOT, "%n%s:%n", label);
    for (double gbit : new double[] {10, 1}) {
      // the terms that grow with P (c₀ is the round's fixed cost, paid at any P)
      java.util.function.IntToDoubleFunction growing = p -> {
        Breakdown b = model.predict(cluster(Scheme.BIDIRECTIONAL, d, k, p, gbit, 0, 1, sparkUp, sparkDown));
        return b.driver() + b.uplink() + b.downlink() + b.scheduling() - model.fixedNanos() * 1e-9;
      };
      double compute = model.predict(cluster(Scheme.BIDIRECTIONAL, d, k, 1, gbit, 0, 1, sparkUp, sparkDown)).compute();
      int driverBound = firstP(p -> growing.applyAsDouble(p) > compute);
      System.out.printf(Locale.ROOT, "at %.0f Gbit/s each worker adds %.3f ms to the driver's side of a round (its "
          + "decoding, its link both ways, its task)%n", gbit, 1e3 * (growing.applyAsDouble(1000)
          - growing.applyAsDouble(100)) / 900);
      int driverComputeBound = firstP(p -> {
        Breakdown b = model.predict(cluster(Scheme.BIDIRECTIONAL, d, k, p, gbit, 0, 1, sparkUp, sparkDown));
        return b.driver() > b.compute();
      });
      System.out.printf(Locale.ROOT, "at %.0f Gbit/s (bidirectional, d = 25M, rho = 0.001): the driver's terms "
          + "that grow with P (its decoding and TopK, its link both ways, Spark's tasks) exceed a worker's compute "
          + "(%.1f ms) from P = %s on; its decoding and TopK alone from P = %s on%n", gbit, 1e3 * compute, shown(driverBound),
          shown(driverComputeBound));
      for (double overlap : new double[] {0, 0.5, 0.9}) {
        int pays = firstP(p -> {
          int g = (int) Math.round(Math.sqrt(p));
          return g > 1 && model.predict(cluster(Scheme.BIDIRECTIONAL, d, k, p, gbit, overlap, g, sparkUp, sparkDown))
              .total() < model.predict(cluster(Scheme.BIDIRECTIONAL, d, k, p, gbit, overlap, 1, sparkUp, sparkDown))
              .total();
        });
        System.out.printf(Locale.ROOT, "  a tree of sqrt(P) groups with overlap %.1f is faster than the flat round "
            + "from P = %s on%n", overlap, shown(pays));
      }
    }
  }

  private static Scenario cluster(Scheme scheme, long d, long k, int p, double gbit, double overlap, int groups,
      double sparkUp, double sparkDown) {
    return new Scenario(scheme, d, p, k, k, p, gbit * 1e9 / 8, 50e-6, MESSAGES, UP_BYTES, DOWN_BYTES, p, sparkUp,
        sparkDown, overlap, groups, p);
  }

  private static int firstP(java.util.function.IntPredicate test) {
    for (int p = 2; p <= 100_000; p++) {
      if (test.test(p)) {
        return p;
      }
    }
    return -1;
  }

  private static String shown(int p) {
    return p < 0 ? "(no P up to 100,000)" : String.format(Locale.ROOT, "%,d", p);
  }

  private static String rate(long bits) {
    return bits >= 1_000_000_000 ? bits / 1_000_000_000 + " Gbit/s" : bits / 1_000_000 + " Mbit/s";
  }

  private static String scheme(Scheme s) {
    return s.name().toLowerCase(Locale.ROOT);
  }

  private static String ms(double seconds) {
    return String.format(Locale.ROOT, "%.1f", 1e3 * seconds);
  }

  private static Measured readLoopback(Path point) throws IOException {
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
    double up = steady.stream().mapToDouble(l -> l.path("up_bytes").asDouble() / l.path("up_nnz").asDouble())
        .average().orElse(Double.NaN);
    double down = steady.stream().mapToDouble(l -> l.path("down_bytes").asDouble() / l.path("down_nnz").asDouble())
        .average().orElse(Double.NaN);
    int tasks = steady.get(0).path("tasks").asInt();
    Scenario s = new Scenario(Scheme.BIDIRECTIONAL, d, workers, k, k, 2, Double.POSITIVE_INFINITY, 0, MESSAGES, up,
        down, tasks, 0, 0, 0, 1, Math.min(workers, 2));
    return new Measured(s, total);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
