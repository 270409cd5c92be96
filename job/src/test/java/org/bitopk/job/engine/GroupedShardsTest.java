package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.RDDInfo;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.Datasets;
import org.bitopk.datasets.TrainTest;
import org.bitopk.datasets.WorkerShard;
import org.bitopk.job.LocalSpark;
import org.bitopk.job.config.DownlinkScheme;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.problem.network.ImageProblem;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.run.RunPlans;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Worker groups whose shards are cut from the data set's files where the group runs: at P = 8 workers in fewer
 * tasks the run equals, bit for bit, the run of one worker per task on shards the driver cut and broadcast (the
 * path that caches every worker's shard by itself), in every mode and uplink/downlink scheme; only the groups are
 * cached, each holding its own workers' shards in order; and the placement spreads S groups over E executors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GroupedShardsTest {
  private static final int WORKERS = 8;
  private static final String DATASET = "synthetic:n=1600,test=200,shape=1x8x8,classes=4";
  @RegisterExtension
  static final LocalSpark SPARK = new LocalSpark();
  private TrainTest data;

  @BeforeAll
  void load() {
    data = Datasets.load(DATASET, null, new Configuration());
  }

  private record Outcome(List<IterationRecord> iterations, float[] model) {}

  private Outcome train(ImageProblem problem, TrainingConfig config, String runId) {
    RunRecorder recorder = new RunRecorder();
    JavaSparkContext sc = SPARK.context();
    RunPlan plan = RunPlans.of(config, problem, sc.defaultParallelism());
    assertEquals(config.tasks(), plan.tasks());
    new Trainer<>(sc, plan, problem, runId, List.of(recorder)).run();
    return new Outcome(new ArrayList<>(recorder.iterations), recorder.model);
  }

  private ImageProblem driverShards() {
    return new ImageProblem(SPARK.context(), DATASET, data, ModelArchitecture.MLP_SMALL, WORKERS, false, 8, 3);
  }

  private ImageProblem fileShards() {
    return ImageProblem.readByExecutors(SPARK.context(), DATASET, Optional.empty(), data, ModelArchitecture.MLP_SMALL,
        WORKERS, false, 8, 3);
  }

  @ParameterizedTest(name = "{0} {1}/{2}")
  @CsvSource({"DENSE, EF14, AVERAGE", "UNIDIRECTIONAL, EF14, AVERAGE", "BIDIRECTIONAL, EF14, EF",
      "BIDIRECTIONAL, EF21, EF21_P", "BIDIRECTIONAL, ARTEMIS, MCM", "BIDIRECTIONAL, NONE, EF21_P"})
  void groupsOfFileShardsTrainLikeOneWorkerPerTaskOfDriverShards(Mode mode, UplinkFeedback feedback,
      DownlinkScheme scheme) {
    boolean artemis = feedback == UplinkFeedback.ARTEMIS;
    TrainingConfigBuilder config = TrainingConfig.builder().dataset(DATASET).mode(mode)
        .model(ModelArchitecture.MLP_SMALL).workers(WORKERS).uplink(CompressorSpec.parse(artemis ? "natural" : "topk"))
        .downlink(CompressorSpec.parse(artemis ? "randomk:scaled" : "topk")).densityUp(0.02).densityDown(0.01)
        .learningRate(0.05).momentum(feedback == UplinkFeedback.EF14 ? 0.9 : 0).batchSize(8).epochs(1)
        .maxIterations(8).consistencyCheckEvery(1).seed(3).uplinkFeedback(feedback);
    if (mode == Mode.BIDIRECTIONAL) {
      config.downlinkScheme(scheme);
    }
    String name = mode + "-" + feedback + "-" + scheme;
    Outcome reference;
    try (ImageProblem problem = driverShards()) {
      reference = train(problem, config.tasks(WORKERS).build(), "one-per-task-" + name);
    }
    int[] taskCounts = mode == Mode.BIDIRECTIONAL && feedback == UplinkFeedback.EF14 ? new int[] {3, 4} : new int[] {3};
    for (int tasks : taskCounts) {
      Outcome grouped;
      try (ImageProblem problem = fileShards()) {
        grouped = train(problem, config.tasks(tasks).build(), "grouped-" + tasks + "-" + name);
      }
      assertArrayEquals(reference.model(), grouped.model(), name + ": final model in " + tasks + " tasks");
      assertEquals(reference.iterations().size(), grouped.iterations().size());
      for (int t = 0; t < reference.iterations().size(); t++) {
        IterationRecord a = reference.iterations().get(t);
        IterationRecord b = grouped.iterations().get(t);
        assertEquals(a.loss(), b.loss(), 0.0, name + ", " + tasks + " tasks, round " + t);
        assertEquals(a.upBytes(), b.upBytes(), name + ", " + tasks + " tasks, round " + t);
        assertEquals(a.downBytes(), b.downBytes(), name + ", " + tasks + " tasks, round " + t);
        assertEquals(tasks, b.tasks());
        assertEquals(0, b.lostResiduals());
      }
    }
  }

  /** The groups hold their workers' shards, value for value, and they alone are cached. */
  @Test
  void onlyTheGroupsAreCachedEachWithItsOwnWorkersShards() throws java.util.concurrent.TimeoutException {
    JavaSparkContext sc = SPARK.context();
    List<WorkerShard> expected;
    try (ImageProblem problem = driverShards()) {
      expected = problem.shards().collect();
    }
    for (int tasks : new int[] {3, WORKERS}) {
      try (ImageProblem problem = fileShards()) {
        JavaRDD<WorkerShard> groups = WorkerGroups.group(problem.shards(), tasks,
            GroupPlacement.ofRegisteredExecutors(sc.sc()));
        try {
          // Spark's storage info comes from its listener bus, which hears of cached blocks asynchronously
          sc.sc().listenerBus().waitUntilEmpty();
          List<Integer> cached = new ArrayList<>();
          for (RDDInfo info : sc.sc().getRDDStorageInfo()) {
            cached.add(info.id());
            assertEquals(tasks, info.numCachedPartitions(), info.toString());
          }
          assertEquals(List.of(groups.id()), cached, "only the groups are cached, not the per-worker shards");
          List<List<WorkerShard>> byGroup = groups.glom().collect();
          assertEquals(tasks, byGroup.size());
          for (int g = 0; g < tasks; g++) {
            List<WorkerShard> group = byGroup.get(g);
            int first = WorkerGroups.firstWorker(g, WORKERS, tasks);
            assertEquals(WorkerGroups.firstWorker(g + 1, WORKERS, tasks) - first, group.size(), "group " + g);
            for (int i = 0; i < group.size(); i++) {
              WorkerShard want = expected.get(first + i);
              assertEquals(want.workerId(), group.get(i).workerId());
              assertArrayEquals(want.data().features(), group.get(i).data().features(), "worker " + (first + i));
              assertArrayEquals(want.data().labels(), group.get(i).data().labels(), "worker " + (first + i));
            }
          }
        } finally {
          groups.unpersist(true);
        }
      }
    }
  }

  /** S groups on E executors: ⌊S/E⌋ or ⌈S/E⌉ each, one wave of at most one group per executor at a time. */
  @Test
  void placementSpreadsTheGroupsOverTheExecutors() {
    List<String> executors = List.of("executor_h1_1", "executor_h2_2", "executor_h3_3", "executor_h4_4");
    GroupPlacement placement = new GroupPlacement(executors);
    for (int groups = 1; groups <= 13; groups++) {
      int[] perExecutor = new int[executors.size()];
      for (int g = 0; g < groups; g++) {
        perExecutor[executors.indexOf(placement.location(g).get())]++;
      }
      for (int count : perExecutor) {
        assertTrue(count == groups / 4 || count == (groups + 3) / 4, groups + " groups: " + List.of(perExecutor));
      }
      List<List<Integer>> waves = placement.waves(groups);
      assertEquals((groups + 3) / 4, waves.size());
      List<Integer> all = new ArrayList<>();
      for (List<Integer> wave : waves) {
        assertTrue(wave.size() <= 4);
        assertEquals(wave.size(), wave.stream().map(g -> placement.location(g).get()).distinct().count(),
            "a wave holds at most one group per executor: " + wave);
        all.addAll(wave);
      }
      assertEquals(java.util.stream.IntStream.range(0, groups).boxed().toList(), all);
    }
    GroupPlacement local = new GroupPlacement(List.of());
    assertTrue(local.location(0).isEmpty(), "local mode places nothing");
    assertEquals(List.of(List.of(0, 1, 2)), local.waves(3));
  }

  /**
   * A placement's moving groups in waves of at most {@code slots} per executor, against brute force: every group
   * asked for once, in group order within a wave, and each executor's k-th group in wave ⌊k / slots⌋.
   */
  @Test
  void movingGroupsGoInWavesOfTheExecutorsSlots() {
    List<String> assignment = List.of("executor_a_1", "executor_b_2", "executor_a_1", "executor_a_1",
        "executor_b_2", "executor_a_1", "executor_c_3");
    GroupPlacement placement = new GroupPlacement(List.of("executor_a_1", "executor_b_2", "executor_c_3"),
        assignment);
    for (int mask = 0; mask < 1 << assignment.size(); mask++) {
      List<Integer> which = new ArrayList<>();
      for (int g = 0; g < assignment.size(); g++) {
        if ((mask >> g & 1) == 1) {
          which.add(g);
        }
      }
      for (int slots = 1; slots <= 4; slots++) {
        List<List<Integer>> waves = placement.waves(which, slots);
        List<Integer> all = new ArrayList<>();
        for (int w = 0; w < waves.size(); w++) {
          assertTrue(waves.get(w).equals(waves.get(w).stream().sorted().toList()), "in group order: " + waves);
          all.addAll(waves.get(w));
          for (int g : waves.get(w)) {
            int k = 0;
            for (int h : which) {
              k += h < g && assignment.get(h).equals(assignment.get(g)) ? 1 : 0;
            }
            assertEquals(k / slots, w, "group " + g + " with " + slots + " slot(s): " + waves);
          }
        }
        assertEquals(which, all.stream().sorted().toList());
      }
    }
    assertEquals(List.of(List.of(0, 1, 2, 4), List.of(3, 5)), placement.waves(List.of(0, 1, 2, 3, 4, 5), 2));
    assertThrows(IllegalArgumentException.class, () -> placement.waves(List.of(0), 0));
  }
}
