package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.api.java.JavaSparkContext;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.DownlinkScheme;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.problem.TrainingProblem;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.quadratic.CounterexampleProblem;
import org.bitopk.job.problem.quadratic.CounterexampleSetting;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No dense model at start: new replicas build x_0 on the executors from the seed and the model, check it against
 * the driver's checksum, and load the dense snapshot only when it differs (forced here by changing one bit of the
 * x_0 every replica builds) or when they cannot build it. The reference for "no dense model" is 4·d bytes, a dense
 * x_0; the reference for the results is the same run through the snapshot, bit for bit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicaStartTest {
  private static final int WORKERS = 4;
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private TrainTest data;

  @BeforeAll
  void loadData() {
    data = Datasets.load("synthetic:n=2000,test=100", null, new Configuration());
  }

  /** What the next runs inject: replicas whose own x_0 is one bit off, or nothing. */
  private static FaultInjector faults = FaultInjector.NONE;

  @AfterEach
  void clearFaults() {
    faults = FaultInjector.NONE;
  }

  /** A run's records, x_t for every t, the replicas it left on the executors, its final models. */
  private static final class Outcome implements RunListener {
    final ReplicaWatch watch = new ReplicaWatch();
    ResumePoint saved;
    int saveAfter = -1;
    float[] master;
    float[] model;

    @Override
    public void afterRound(DriverState state) {
      if (state.iteration() == saveAfter) {
        saved = state.resumePoint();
      }
    }

    @Override
    public void onFinish(RunSummary summary, DriverState state) {
      master = state.masterParameters();
      model = state.modelParameters();
    }

    List<IterationRecord> rounds() {
      return watch.recorder.iterations;
    }

    IterationRecord round(int t) {
      return rounds().get(t);
    }
  }

  private static <S> Outcome train(TrainingConfig config, TrainingProblem<S> problem, String name, ResumePoint resume,
      int saveAfter) {
    JavaSparkContext sc = SPARK.context();
    Outcome outcome = new Outcome();
    outcome.saveAfter = saveAfter;
    Trainer<S> trainer = new Trainer<>(sc, RunPlans.of(config, problem, sc.defaultParallelism()), problem,
        name + (faults != FaultInjector.NONE ? "-perturbed" : "") + (resume != null ? "-resumed" : ""),
        List.of(outcome.watch, outcome)).injectFaults(faults);
    if (resume != null) {
      trainer.resumeFrom(resume);
    }
    trainer.run();
    return outcome;
  }

  private Outcome trainMlp(String name) {
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(Mode.BIDIRECTIONAL)
        .model(ModelArchitecture.MLP_SMALL).workers(WORKERS).densityUp(0.01).densityDown(0.01).learningRate(0.05)
        .batchSize(16).maxIterations(12).consistencyCheckEvery(1).seed(7).build();
    try (ImageProblem problem = new ImageProblem(SPARK.context(), "synthetic", data, ModelArchitecture.MLP_SMALL,
        WORKERS, false, 16, 7)) {
      return train(config, problem, name, null, -1);
    }
  }

  private static void assertBitIdentical(float[] expected, float[] actual, String what) {
    assertEquals(expected.length, actual.length, what);
    for (int j = 0; j < expected.length; j++) {
      assertEquals(Float.floatToRawIntBits(expected[j]), Float.floatToRawIntBits(actual[j]), what + ", entry " + j);
    }
  }

  /** Every replica the run left, against the driver's x_t at the replica's t. */
  private static void assertReplicasAreTheDrivers(Outcome run) {
    assertTrue(!run.watch.replicas.isEmpty(), "no replica in this JVM");
    for (ReplicaSnapshot replica : run.watch.replicas) {
      float[] master = run.watch.masters.get(replica.iteration());
      assertBitIdentical(master, replica.parameters(), "replica at " + replica.iteration());
      assertBitIdentical(master, replica.modelParameters(), "replica's network at " + replica.iteration());
    }
  }

  @Test
  void firstRoundShipsNoDenseModelAndEndsWhereTheSnapshotPathEnds() {
    Outcome built = trainMlp("start-mlp");
    faults = new InjectedFaults.PerturbedStart("");
    List<String> warnings = new CopyOnWriteArrayList<>();
    Outcome snapshot;
    try (AutoCloseable ignored = capture(Trainer.class, warnings)) {
      snapshot = trainMlp("start-mlp");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    int d = built.master.length;
    IterationRecord first = built.round(0);
    assertEquals(0, first.replicaResyncs(), "no replica loads a snapshot in round 0");
    assertEquals(first.downBytes() * WORKERS, first.downBytesDelivered(), "round 0 delivers the update alone");
    assertTrue(first.downBytesDelivered() < 4L * d, "round 0 delivered " + first.downBytesDelivered()
        + " bytes, a dense x_0 alone is " + 4L * d);
    assertEquals(0, built.rounds().stream().mapToInt(IterationRecord::replicaResyncs).sum());

    IterationRecord reloaded = snapshot.round(0);
    assertTrue(reloaded.replicaResyncs() >= 1, "perturbed replicas must load the snapshot");
    assertEquals(first.downBytesDelivered() + 4L * d * reloaded.replicaResyncs(), reloaded.downBytesDelivered(),
        "the snapshot path delivers 4·d bytes more per new replica");
    assertEquals(1, warnings.size(), "one line on the driver: " + warnings);
    assertTrue(warnings.get(0).startsWith("round 0: " + reloaded.replicaResyncs() + " new replica(s) built an x_0 "
        + "whose checksum is not the driver's"), warnings.get(0));

    for (int t = 0; t < built.rounds().size(); t++) {
      assertEquals(built.round(t).loss(), snapshot.round(t).loss(), 0.0, "loss of round " + t);
      assertEquals(built.round(t).downBytes(), snapshot.round(t).downBytes(), "down bytes of round " + t);
      assertEquals(built.round(t).upBytes(), snapshot.round(t).upBytes(), "up bytes of round " + t);
    }
    assertBitIdentical(snapshot.master, built.master, "final model, built x_0 against the snapshot's");
    assertReplicasAreTheDrivers(built);
    assertReplicasAreTheDrivers(snapshot);
  }

  /** Convolutions run on the workers' own layer class ({@code DirectIm2colConvolutionLayer}): x_0 is the same. */
  @Test
  void convolutionalReplicasBuildTheDriversStartToo() {
    TrainingConfig config = TrainingConfig.builder().dataset("synthetic").mode(Mode.BIDIRECTIONAL)
        .model(ModelArchitecture.CNN_BN).workers(2).densityUp(0.01).densityDown(0.01).learningRate(0.05)
        .batchSize(16).maxIterations(2).consistencyCheckEvery(1).seed(7).build();
    Outcome run;
    try (ImageProblem problem = new ImageProblem(SPARK.context(), "synthetic", data, ModelArchitecture.CNN_BN, 2,
        false, 16, 7)) {
      run = train(config, problem, "start-cnn", null, -1);
    }
    assertEquals(0, run.round(0).replicaResyncs());
    assertReplicasAreTheDrivers(run);
  }

  private Outcome trainCounterexample(String schemes, CounterexampleProblem problem, int rounds, ResumePoint resume,
      int saveAfter) {
    String[] parts = schemes.split("/");
    TrainingConfigBuilder config = TrainingConfig.builder().dataset(TrainingConfig.COUNTEREXAMPLE)
        .mode(Mode.valueOf(parts[0])).uplink(CompressorSpec.parse(parts[3])).downlink(CompressorSpec.parse(parts[4]))
        .densityUp(0.01).densityDown(0.01).learningRate(0.01).epochs(rounds).seed(6).consistencyCheckEvery(1);
    if (parts[0].equals("BIDIRECTIONAL")) {
      config.uplinkFeedback(UplinkFeedback.valueOf(parts[1])).downlinkScheme(DownlinkScheme.valueOf(parts[2]));
    }
    return train(config.build(), problem, "start-" + schemes, resume, saveAfter);
  }

  /** Every uplink and downlink scheme: the replicas build x_0, and end where the snapshot path ends, bit for bit. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"BIDIRECTIONAL/EF14/EF/topk/topk", "BIDIRECTIONAL/EF21/EF21_P/topk/topk",
      "BIDIRECTIONAL/ARTEMIS/MCM/natural/randomk:scaled", "UNIDIRECTIONAL/-/-/topk/topk", "DENSE/-/-/topk/topk"})
  void everySchemeStartsFromTheBuiltModel(String schemes) {
    JavaSparkContext sc = SPARK.context();
    Outcome built;
    Outcome snapshot;
    try (CounterexampleProblem problem = new CounterexampleProblem(sc, 6)) {
      built = trainCounterexample(schemes, problem, 30, null, -1);
      faults = new InjectedFaults.PerturbedStart("");
      snapshot = trainCounterexample(schemes, problem, 30, null, -1);
    }
    assertEquals(0, built.round(0).replicaResyncs());
    assertTrue(snapshot.round(0).replicaResyncs() >= 1);
    for (int t = 0; t < 30; t++) {
      assertEquals(built.round(t).optimalityGap(), snapshot.round(t).optimalityGap(), 0.0, "round " + t);
    }
    assertBitIdentical(snapshot.master, built.master, "workers' model");
    assertBitIdentical(snapshot.model, built.model, "run's model");
    assertReplicasAreTheDrivers(built);
  }

  /**
   * x_0 from a file: read by the executors when they can (no snapshot), else loaded from the snapshot, one line
   * saying so; the same run either way.
   */
  @Test
  void startFromAFileIsReadOnTheExecutorsOrLoaded(@TempDir Path dir) throws IOException {
    CounterexampleSetting setting = CounterexampleSetting.PAPER;
    float[] x0 = new float[setting.dimension()];
    StringBuilder text = new StringBuilder("# x0\n");
    for (int j = 0; j < x0.length; j++) {
      x0[j] = 15f + j / 7f;
      text.append(String.format(Locale.ROOT, "%.9e%n", x0[j]));
    }
    Path file = Files.writeString(dir.resolve("x0.txt"), text);
    String schemes = "BIDIRECTIONAL/EF14/EF/topk/topk";
    JavaSparkContext sc = SPARK.context();
    Outcome read;
    Outcome loaded;
    try (CounterexampleProblem problem = new CounterexampleProblem(sc, setting, x0, file.toString())) {
      read = trainCounterexample(schemes, problem, 10, null, -1);
    }
    // The driver read a file the executors do not have.
    try (CounterexampleProblem problem = new CounterexampleProblem(sc, setting, x0,
        dir.resolve("elsewhere.txt").toString())) {
      loaded = trainCounterexample(schemes, problem, 10, null, -1);
    }
    assertEquals(0, read.round(0).replicaResyncs(), "the executors read x_0 from the file");
    assertTrue(loaded.round(0).replicaResyncs() >= 1, "without the file, the replicas load the snapshot");
    assertBitIdentical(read.master, loaded.master, "final model");
  }

  /** A resumed run's x_t comes from the checkpoint: new replicas load it through the snapshot, and go on bit for bit. */
  @Test
  void resumedRunLoadsTheCheckpointsModel() {
    String schemes = "BIDIRECTIONAL/EF21/EF21_P/topk/topk";
    JavaSparkContext sc = SPARK.context();
    try (CounterexampleProblem problem = new CounterexampleProblem(sc, 6)) {
      Outcome full = trainCounterexample(schemes, problem, 20, null, 8);
      Outcome resumed = trainCounterexample(schemes, problem, 20, full.saved, -1);
      assertTrue(resumed.round(0).replicaResyncs() >= 1, "replicas of a resumed run load the checkpoint's model");
      assertEquals(0, full.round(8).replicaResyncs());
      for (int t = 8; t < 20; t++) {
        assertEquals(full.round(t).optimalityGap(), resumed.round(t - 8).optimalityGap(), 0.0, "round " + t);
      }
      assertBitIdentical(full.master, resumed.master, "final model");
    }
  }

  /** Collects the messages {@code source} logs at WARN until closed. */
  private static AutoCloseable capture(Class<?> source, List<String> messages) {
    Logger logger = (Logger) LogManager.getLogger(source);
    AbstractAppender appender = new AbstractAppender("replica-start-" + System.nanoTime(), null, null, true,
        Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        if (event.getLevel().isMoreSpecificThan(org.apache.logging.log4j.Level.WARN)) {
          messages.add(event.getMessage().getFormattedMessage());
        }
      }
    };
    appender.start();
    logger.addAppender(appender);
    return () -> {
      logger.removeAppender(appender);
      appender.stop();
    };
  }
}
