package org.bitopk.lab.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.bitopk.lab.scale.RoundCostModel.Scenario;
import org.bitopk.lab.scale.RoundCostModel.Scheme;
import org.junit.jupiter.api.Test;

/** The cost model's fits recover known constants, and its terms equal the formulas worked out by hand. */
class RoundCostModelTest {
  private static final long[] DIMENSIONS = {1_000_000, 5_000_000, 25_000_000};
  private static final int[] WORKERS = {8, 32, 128, 256};
  private static final double[] DENSITIES = {0.001, 0.01};

  private static List<DriverCost.Point> driverPoints(double a, double b, double c, double dSquared) {
    List<DriverCost.Point> points = new ArrayList<>();
    for (long d : DIMENSIONS) {
      for (int p : WORKERS) {
        for (double rho : DENSITIES) {
          long k = Math.round(rho * d);
          double nanos = a * p * k + b * d + c + dSquared * d * d;
          points.add(new DriverCost.Point(d, p, k, nanos));
        }
      }
    }
    return points;
  }

  @Test
  void theDriverFitRecoversLinearConstantsAndFindsNoSuperLinearTerm() {
    DriverCost.Fit fit = DriverCost.fit(driverPoints(7.5, 3.25, 200_000, 0));
    assertEquals(7.5, fit.cost().nanosPerReceivedCoordinate(), 1e-6);
    assertEquals(3.25, fit.cost().nanosPerElement(), 1e-6);
    assertEquals(200_000, fit.cost().fixedNanos(), 1e-2);
    assertTrue(fit.worstRelativeError() < 1e-9, "residual " + fit.worstRelativeError());
    for (double e : DriverCost.extrapolationErrors(driverPoints(7.5, 3.25, 200_000, 0))) {
      assertEquals(0, e, 1e-9);
    }
  }

  @Test
  void aSuperLinearDriverIsSeen() {
    List<DriverCost.Point> points = driverPoints(7.5, 3.25, 200_000, 1e-7);
    double[] errors = DriverCost.extrapolationErrors(points);
    for (double e : errors) {
      assertTrue(e < -0.05, "the fit on d = 1M and 5M falls short at 25M by " + e);
    }
    assertTrue(java.util.Arrays.stream(errors).min().orElseThrow() < -0.3, java.util.Arrays.toString(errors));
    assertTrue(DriverCost.fit(points).worstRelativeError() > 0.05);
  }

  private static Scenario loopback(long d, int p, double rho) {
    long k = Math.round(rho * d);
    return new Scenario(Scheme.BIDIRECTIONAL, d, p, k, k, 2, Double.POSITIVE_INFINITY, 0, 4, 5.5, 5.5, p, 30_000, 0,
        0, 1, p);
  }

  @Test
  void theRoundFitRecoversComputeSchedulingAndFixedCosts() {
    DriverCost driver = new DriverCost(6, 4, 1e6);
    List<RoundCostModel.Measured> points = new ArrayList<>();
    for (long d : new long[] {1_000_000, 4_000_000}) {
      for (int p : new int[] {2, 4, 8, 16}) {
        for (double rho : DENSITIES) {
          long k = Math.round(rho * d);
          double nanos = 6.0 * p * k + 4.0 * d + 1e6          // the driver
              + Math.ceil(p / 2.0) * 12.0 * d                  // γ = 12 ns per element and worker
              + 2e6 * p + 15e6;                                // σ = 2 ms per task, c₀ = 15 ms
          points.add(new RoundCostModel.Measured(loopback(d, p, rho), nanos * 1e-9));
        }
      }
    }
    RoundCostModel model = RoundCostModel.fit(driver, points);
    assertEquals(12, model.workerNanosPerElement(), 1e-6);
    assertEquals(2e6, model.nanosPerTask(), 1);
    assertEquals(15e6, model.fixedNanos(), 10);
    for (double e : model.relativeErrors(points)) {
      assertEquals(0, e, 1e-9);
    }
  }

  /** A lab-like point: a shaped link, T tasks, Spark's bytes per task both ways, one update per executor. */
  private static Scenario lab(Scheme scheme, long d, int p, int tasks, double bytesPerSecond) {
    long k = scheme == Scheme.DENSE ? d : d / 100;
    return new Scenario(scheme, d, p, k, k, 2, bytesPerSecond, 0, 4, 5.0, 5.0, tasks, 7_000, 15_000, 0, 1,
        Math.min(4, tasks));
  }

  @Test
  void theLabFitRecoversPerTaskCostsWhenTheTasksVaryAndFoldsThemIntoTheRoundOtherwise() {
    DriverCost driver = new DriverCost(30, 3, 2e6);
    List<RoundCostModel.Measured> varied = new ArrayList<>();
    List<RoundCostModel.Measured> fixed = new ArrayList<>();
    for (double rate : new double[] {12.5e6, 125e6}) {
      for (int p : new int[] {4, 8, 16, 32, 64}) {
        for (int tasks : new int[] {4, p}) {
          for (Scheme scheme : Scheme.values()) {
            Scenario s = lab(scheme, 1_000_000, p, tasks, rate);
            long received = scheme == Scheme.DENSE ? p * 1_000_000L : p * 10_000L;
            long update = switch (scheme) {
              case BIDIRECTIONAL -> 10_000;
              case UNIDIRECTIONAL -> p * 10_000L;
              case DENSE -> 1_000_000;
            };
            double bytesPerCoordinate = scheme == Scheme.DENSE ? 4 : 5;
            double seconds = Math.ceil(p / 2.0) * 9e-9 * 1e6                      // γ = 9 ns
                + (received * bytesPerCoordinate + tasks * 7_000) / rate
                + (30e-9 * received + 3e-9 * 1e6 + 2e-3)
                + (Math.min(4, tasks) * update * bytesPerCoordinate + tasks * 15_000) / rate
                + 3e-3 * tasks + 40e-3;                                            // σ = 3 ms, c₀ = 40 ms
            RoundCostModel.Measured m = new RoundCostModel.Measured(s, seconds);
            varied.add(m);
            if (tasks == 4) {
              fixed.add(m);
            }
          }
        }
      }
    }
    RoundCostModel model = RoundCostModel.fit(driver, varied);
    assertEquals(9, model.workerNanosPerElement(), 1e-6);
    assertEquals(3e6, model.nanosPerTask(), 1);
    assertEquals(40e6, model.fixedNanos(), 10);
    RoundCostModel folded = RoundCostModel.fit(driver, fixed);
    assertEquals(9, folded.workerNanosPerElement(), 1e-6);
    assertEquals(0, folded.nanosPerTask());
    assertEquals(40e6 + 4 * 3e6, folded.fixedNanos(), 10);
    for (double e : folded.relativeErrors(fixed)) {
      assertEquals(0, e, 1e-9);
    }
  }

  @Test
  void sparkBytesAndSchedulingCountTasksNotWorkers() {
    RoundCostModel model = new RoundCostModel(new DriverCost(6, 4, 1e6), 10, 1e5, 2e6);
    Scenario s = lab(Scheme.BIDIRECTIONAL, 1_000_000, 64, 4, 12.5e6);
    RoundCostModel.Breakdown b = model.predict(s);
    assertEquals((64 * 10_000 * 5.0 + 4 * 7_000) / 12.5e6, b.uplink(), 1e-12);
    assertEquals((4 * 10_000 * 5.0 + 4 * 15_000) / 12.5e6, b.downlink(), 1e-12);
    assertEquals((1e5 * 4 + 2e6) * 1e-9, b.scheduling(), 1e-15);
    assertEquals(32 * 10 * 1e6 * 1e-9, b.compute(), 1e-12);
  }

  @Test
  void theTermsAreTheFormulas() {
    RoundCostModel model = new RoundCostModel(new DriverCost(6, 4, 1e6), 10, 1e5, 2e6);
    long d = 25_000_000;
    long k = 25_000;
    double link = 10e9 / 8;
    Scenario bidirectional = new Scenario(Scheme.BIDIRECTIONAL, d, 100, k, k, 100, link, 50e-6, 4, 5.5, 5.25, 100,
        30_000, 0, 0, 1, 100);
    RoundCostModel.Breakdown b = model.predict(bidirectional);
    assertEquals(10 * 25e6 * 1e-9, b.compute(), 1e-12);
    assertEquals((100 * 25_000 * 5.5 + 100 * 30_000) / link, b.uplink(), 1e-12);
    assertEquals((6.0 * 100 * 25_000 + 4.0 * 25e6 + 1e6) * 1e-9, b.driver(), 1e-12);
    assertEquals(100 * 25_000 * 5.25 / link, b.downlink(), 1e-12);
    assertEquals(4 * 50e-6, b.latency(), 1e-15);
    assertEquals((1e5 * 100 + 2e6) * 1e-9, b.scheduling(), 1e-15);
    assertEquals(0, b.treeStage());

    Scenario unidirectional = new Scenario(Scheme.UNIDIRECTIONAL, d, 100, k, k, 1, link, 50e-6, 4, 5.5, 5.25,
        100, 30_000, 0, 0.5, 1, 100);
    assertEquals(100 * (12_500 + 100 * 12_500) * 5.25 / link, model.predict(unidirectional).downlink(), 1e-12);

    Scenario dense = new Scenario(Scheme.DENSE, d, 100, d, d, 1, link, 50e-6, 4, 5.5, 5.25, 100, 30_000, 0, 0, 1,
        100);
    assertEquals((100 * 25e6 * 4 + 100 * 30_000) / link, model.predict(dense).uplink(), 1e-9);
    assertEquals((6.0 * 100 * 25e6 + 4.0 * 25e6 + 1e6) * 1e-9, model.predict(dense).driver(), 1e-9);

    // A tree of 10 groups of 10: with half of k shared each partial sum holds 0.5k + 10·0.5k coordinates.
    Scenario tree = new Scenario(Scheme.BIDIRECTIONAL, d, 100, k, k, 1, link, 50e-6, 4, 5.5, 5.25, 100, 30_000, 0, 0.5,
        10, 100);
    RoundCostModel.Breakdown t = model.predict(tree);
    assertEquals((6.0 * 10 * (12_500 + 10 * 12_500) + 4.0 * 25e6 + 1e6) * 1e-9, t.driver(), 1e-12);
    assertEquals(6.0 * 10 * 25_000 * 1e-9 + 10 * 25_000 * 5.5 / link + 2 * 50e-6 + 1e5 * 10 * 1e-9 + 2e-3,
        t.treeStage(),
        1e-12);
  }
}
