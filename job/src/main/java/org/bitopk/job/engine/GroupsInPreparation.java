package org.bitopk.job.engine;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.bitopk.job.problem.ObjectiveFactory;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * A placement's moving groups built in the background, each on the executor it is to be on, while the rounds go on
 * where the groups are ({@link WorkerGroups#moved}: a moving group's block fetched from the executor it leaves). A
 * new executor's first tasks are slow (its JVM loads Spark's, ND4J's and the job's classes and sets up a model
 * replica: a second or more, dozens of rounds); built beforehand, with a replica waiting in the run's pool there,
 * the move itself costs the transfer of the workers' states ({@link ElasticGroups}). A staying group's block is
 * made by the move's round itself, on its executor, from the group's current block there: it holds the same
 * objects, so that costs the round next to nothing, where building it in the background took a job whose task
 * waited for a slot between two of a round's tasks on a busy executor.
 *
 * <p>The building runs as Spark jobs of their own, in a job group that {@link #discard} cancels: one task per moving
 * group, in the idle task slots of the executor it moves to, as many at a time as that executor has slots. The task
 * fetches and caches its group's block, sets up a replica there and rehearses the round on it. A moving group whose
 * block was built elsewhere after all (Spark's locality wait ran out) makes the building fail, and the next boundary
 * tries again.
 */
final class GroupsInPreparation<S> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GroupsInPreparation.class);

  private final GroupPlacement target;
  private final JavaRDD<S> rdd;
  private final String jobGroup;
  private final int startRound;
  private final long startNanos = System.nanoTime();
  private final CompletableFuture<Void> built;

  private GroupsInPreparation(GroupPlacement target, JavaRDD<S> rdd, String jobGroup, int startRound,
      CompletableFuture<Void> built) {
    this.target = target;
    this.rdd = rdd;
    this.jobGroup = jobGroup;
    this.startRound = startRound;
    this.built = built;
  }

  /**
   * Starts building placement {@code target} of the groups of {@code grouped} before round {@code round};
   * {@code moving} are the groups it moves, each in one task where it is to be that builds its block and rehearses
   * the round ({@link RoundRehearsal}), at most {@code slots} tasks per executor at a time (its task slots).
   */
  static <S> GroupsInPreparation<S> start(JavaRDD<S> grouped, GroupPlacement target, List<Integer> moving,
      String runId, ObjectiveFactory<S> factory, UplinkSettings uplink, int round, int slots) {
    JavaRDD<S> rdd = WorkerGroups.moved(grouped, target);
    String jobGroup = "bitopk-placement-" + runId;
    SparkContext sc = grouped.context();
    CompletableFuture<Void> built = DriverThread.startGroup(sc, "bitopk-group-placement", jobGroup,
        "worker groups built where they are to be", () -> {
          // the rehearsal's own snapshot and update, fetched as the move's round fetches the run's
          JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
          int d = factory.dimension();
          Broadcast<float[]> snapshot = jsc.broadcast(new float[d]);
          Broadcast<byte[]> update = jsc.broadcast(RoundRehearsal.noUpdate(d, uplink));
          try {
            for (List<Integer> wave : target.waves(moving, slots)) {
              // reading its group builds and caches the task's block, from the executor the group leaves
              sc.runJob(rdd.rdd(), new ReplicaInPool<S>(runId, factory, uplink, snapshot, update),
                  JavaConverters.asScalaBuffer(new java.util.ArrayList<Object>(wave)).toSeq(),
                  ClassTag$.MODULE$.apply(Object.class));
            }
          } finally {
            snapshot.destroy();
            update.destroy();
          }
          List<Integer> misplaced = WorkerGroups.misplaced(rdd, target).stream().filter(moving::contains).toList();
          if (!misplaced.isEmpty()) {
            throw new IllegalStateException("group(s) " + misplaced + " built on another executor than placed");
          }
        });
    LOG.info("round {}: building the groups where they are to be, group(s) {} on other executors, while the rounds "
        + "go on", round, moving);
    return new GroupsInPreparation<>(target, rdd, jobGroup, round, built);
  }

  /** Whether this builds placement {@code placement}. */
  boolean isFor(GroupPlacement placement) {
    return target.assignment().equals(placement.assignment());
  }

  boolean isDone() {
    return built.isDone();
  }

  /**
   * Once {@link #isDone}: the placement's RDD with the moving groups built, or empty when building failed (the
   * RDD dropped, the failure logged), for the next boundary to try again.
   */
  Optional<JavaRDD<S>> take(int round) {
    try {
      built.join();
    } catch (RuntimeException e) {
      LOG.warn("building the worker groups where they are to be failed; trying again: {}", e.toString());
      rdd.unpersist(false);
      return Optional.empty();
    }
    LOG.info("round {}: the groups were built where they are to be in {} ms, while rounds {} to {} ran", round,
        Math.round((System.nanoTime() - startNanos) / 1e6), startRound, round - 1);
    return Optional.of(rdd);
  }

  /**
   * On a moving group's executor, a model replica in the run's pool: the group's first round there finds ND4J and
   * the network set up (as a replica a round released) and only brings it to x_t. A new replica first rehearses
   * the round with the group's workers ({@link RoundRehearsal}), so that the JVM has compiled the round's code
   * before the move's round runs it, and the task returns the rehearsal's last report as a round's task returns
   * its reports; a rehearsal that fails is logged and changes nothing else. A named class: no closure.
   */
  private static final class ReplicaInPool<S> extends AbstractFunction1<scala.collection.Iterator<S>, Object>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final String runId;
    private final ObjectiveFactory<S> factory;
    private final UplinkSettings uplink;
    private final Broadcast<float[]> snapshot;
    private final Broadcast<byte[]> update;

    ReplicaInPool(String runId, ObjectiveFactory<S> factory, UplinkSettings uplink, Broadcast<float[]> snapshot,
        Broadcast<byte[]> update) {
      this.runId = runId;
      this.factory = factory;
      this.uplink = uplink;
      this.snapshot = snapshot;
      this.update = update;
    }

    @Override
    public Object apply(scala.collection.Iterator<S> group) {
      // Spark built and cached the group's block here (fetched from the executor it leaves) before this call
      RunState run = ExecutorRegistry.run(runId);
      long begin = System.nanoTime();
      Replica<S> replica = run.borrow(factory, Integer.MAX_VALUE);   // an idle replica there already, or a new one
      try {
        if (replica.iteration < 0 && group.hasNext()) {
          List<S> shards = new java.util.ArrayList<>();
          while (group.hasNext()) {
            shards.add(group.next());
          }
          long start = System.nanoTime();
          RoundRehearsal.Result rehearsed = new RoundRehearsal<>(factory, uplink).run(replica, shards,
              snapshot::value, update::value);
          LOG.info("run {}: a replica set up in {} ms; {} pass(es) of the round rehearsed with {} worker(s) in {} ms "
              + "before the move; {}", runId, Math.round((start - begin) / 1e6), rehearsed.passes(), shards.size(),
              Math.round((System.nanoTime() - start) / 1e6), jvmTimes());
          return rehearsed.lastReport();
        }
      } catch (Exception e) {   // the rehearsal only saves time: the move goes on without it
        LOG.warn("run {}: the round's rehearsal failed, the move goes on without it: {}", runId, e.toString());
      } finally {
        run.release(replica);
      }
      return Boolean.TRUE;
    }

    /** How much of the machine this JVM had: its CPU time against its wall-clock time since it started. */
    private static String jvmTimes() {
      OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
      long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
      String cpu = os instanceof com.sun.management.OperatingSystemMXBean sun
          ? String.format("%.1f s of CPU", sun.getProcessCpuTime() / 1e9) : "its CPU time unknown";
      return String.format("the JVM, %.1f s after it started, %s, the machine's load %.2f", uptime / 1e3, cpu,
          os.getSystemLoadAverage());
    }
  }

  /** Stops building and drops what was built: the placement is no longer wanted. */
  void discard() {
    rdd.context().cancelJobGroup(jobGroup);
    rdd.unpersist(false);
  }
}
