package org.bitopk.job.engine;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;

/**
 * A placement's moving groups built in the background, on the executors they move to, while the rounds go on
 * where the groups are. A new executor's first tasks are slow (its JVM loads Spark's, ND4J's and the job's
 * classes and cuts the groups' blocks from the data set's files: a second or two, dozens of rounds); built
 * beforehand, the move itself costs the transfer of the workers' states. The groups that stay are built when
 * the placement is taken ({@link ElasticGroups}), from the shards already on their executors.
 *
 * <p>The building runs as a Spark job of its own, in a job group that {@link #discard} cancels; its tasks prefer
 * the executors the groups move to, whose task slots hold no group yet, so they do not delay a round's tasks.
 */
final class GroupsInPreparation<S> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GroupsInPreparation.class);

  private final GroupPlacement target;
  private final JavaRDD<S> rdd;
  private final String jobGroup;
  private final int startRound;
  private final long startNanos = System.nanoTime();
  private final CompletableFuture<Void> built = new CompletableFuture<>();

  private GroupsInPreparation(GroupPlacement target, JavaRDD<S> rdd, String jobGroup, int startRound) {
    this.target = target;
    this.rdd = rdd;
    this.jobGroup = jobGroup;
    this.startRound = startRound;
  }

  /** Starts building the groups {@code moving} of placement {@code target} before round {@code round}. */
  static <S> GroupsInPreparation<S> start(JavaRDD<S> shards, int groups, GroupPlacement target, List<Integer> moving,
      String runId, int round) {
    JavaRDD<S> rdd = WorkerGroups.unbuilt(shards, groups, target);
    GroupsInPreparation<S> preparation = new GroupsInPreparation<>(target, rdd, "bitopk-placement-" + runId, round);
    SparkContext sc = shards.context();
    Thread builder = new Thread(() -> {
      try {
        sc.setJobGroup(preparation.jobGroup, "worker groups built on the executors they move to", true);
        WorkerGroups.build(rdd, target, moving);
        preparation.built.complete(null);
      } catch (Throwable e) {
        preparation.built.completeExceptionally(e);
      } finally {
        sc.clearJobGroup();
      }
    }, "bitopk-group-placement");
    builder.setDaemon(true);
    builder.start();
    LOG.info("round {}: building group(s) {} on the executor(s) they move to, while the rounds go on", round,
        moving);
    return preparation;
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
      LOG.warn("building worker groups on the executors they move to failed; trying again: {}", e.toString());
      rdd.unpersist(false);
      return Optional.empty();
    }
    LOG.info("round {}: the moving group(s) were built in {} ms, while rounds {} to {} ran", round,
        Math.round((System.nanoTime() - startNanos) / 1e6), startRound, round - 1);
    return Optional.of(rdd);
  }

  /** Stops building and drops what was built: the placement is no longer wanted. */
  void discard() {
    rdd.context().cancelJobGroup(jobGroup);
    rdd.unpersist(false);
  }
}
