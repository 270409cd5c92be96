package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import scala.collection.JavaConverters;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * The replicas waiting on a joining executor, brought to x_t during round t, the round by which its groups were
 * built ({@link ElasticGroups}): in the move's round, t + 2, they then apply two updates, one of them inline,
 * instead of loading the dense snapshot and reading the window's updates, which took 100 ms or more of that round
 * on the network lab. The catching up is a Spark job of the built groups' tasks beside rounds t and t + 1, on the
 * joining executor, idle until the move; the move's boundary waits for it (the job took 130-320 ms on the lab,
 * more than a round). Publishing round t's update drops the window's oldest broadcasts (and at times the
 * snapshot) that the catching up reads: the window keeps them until the catching up ends or is dropped
 * ({@link DownlinkWindow#hold}; on the network lab a catching up whose tasks started half a second late found the
 * snapshot gone). It reads them side by side as it starts ({@link BroadcastPrefetch}). The job runs no worker's step, so it carries no round
 * ({@link RoundJob#ROUND_PROPERTY}); the time a boundary waits for it is its round's.
 *
 * <p>A task catches up a replica idle in the run's pool there, never a new one (setting one up takes a second); a
 * replica whose catching up fails or is cancelled is left new, so that the move's round loads the snapshot as
 * before. Nothing of the run's bits changes: a replica at x_t is what the round's catch-up makes of it anyway.
 */
final class ArrivingReplicas {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ArrivingReplicas.class);
  /** How long the move's boundary waits for the catching up before it cancels it. */
  static final long WAIT_MILLIS = 2_000;

  private final SparkContext sc;
  private final String jobGroup;
  private final long startNanos = System.nanoTime();
  private final CompletableFuture<Void> done;
  /** Lets the window destroy the broadcasts the catching up reads. */
  private final Runnable release;

  private ArrivingReplicas(SparkContext sc, String jobGroup, CompletableFuture<Void> done, Runnable release) {
    this.sc = sc;
    this.jobGroup = jobGroup;
    this.done = done;
    this.release = release;
  }

  /**
   * Starts bringing the idle replicas on the executors of {@code groups} of {@code rdd} (each group's block built
   * where it is to be) to the iteration of {@code view}, whose broadcasts the window keeps until
   * {@code release} runs ({@link #await} or {@link #cancel} runs it).
   */
  static ArrivingReplicas start(JavaRDD<?> rdd, List<Integer> groups, String runId, DownlinkView view,
      FaultInjector faults, Runnable release) {
    SparkContext sc = rdd.context();
    String jobGroup = "bitopk-arriving-replicas-" + runId;
    // no worker's step: not one of the round's jobs
    CompletableFuture<Void> done = DriverThread.startGroup(sc, "bitopk-arriving-replicas", jobGroup,
        "replicas of a joining executor brought to x_t before the move", () -> sc.runJob(rdd.rdd(),
            new CatchUpInPool<>(runId, view, faults),
            JavaConverters.asScalaBuffer(new ArrayList<Object>(groups)).toSeq(), ClassTag$.MODULE$.apply(Object.class)));
    return new ArrivingReplicas(sc, jobGroup, done, release);
  }

  /**
   * Waits for the catching up started in round {@code round}, at most {@link #WAIT_MILLIS}; a failure only costs
   * the move's round its time.
   */
  void await(int round) {
    long waitFrom = System.nanoTime();
    try {
      done.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
      LOG.info("round {}: the joining executor's replicas were brought to x_{} in {} ms (the move waited {} ms)",
          round, round, Math.round((System.nanoTime() - startNanos) / 1e6),
          Math.round((System.nanoTime() - waitFrom) / 1e6));
    } catch (TimeoutException e) {
      sc.cancelJobGroup(jobGroup);
      LOG.warn("round {}: the joining executor's replicas were not at x_{} after {} ms; cancelled, the move's round "
          + "loads the snapshot there", round, round, WAIT_MILLIS);
    } catch (InterruptedException e) {
      sc.cancelJobGroup(jobGroup);
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.warn("round {}: bringing the joining executor's replicas to x_{} failed; the move's round loads the "
          + "snapshot there: {}", round, round, e.getCause().toString());
    } finally {
      release.run();   // a cancelled task still reading fails, and leaves its replica new
    }
  }

  /** Stops the catching up: the placement it was for is dropped, or the run ends. */
  void cancel() {
    sc.cancelJobGroup(jobGroup);
    release.run();
  }

  /**
   * On a built group's executor, one replica idle in the run's pool brought to the view's x_t; returns the
   * iteration it reached, −1 when there was none idle or it failed. A named class: no closure.
   */
  static final class CatchUpInPool<S> extends AbstractFunction1<scala.collection.Iterator<S>, Object>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final String runId;
    private final DownlinkView view;
    private final FaultInjector faults;

    CatchUpInPool(String runId, DownlinkView view, FaultInjector faults) {
      this.runId = runId;
      this.view = view;
      this.faults = faults;
    }

    @Override
    public Object apply(scala.collection.Iterator<S> group) {
      while (group.hasNext()) {
        group.next();   // read through: the group's cached block is released as the task ends
      }
      RunState run = ExecutorRegistry.run(runId);
      Optional<Replica<S>> idle = run.borrowIdle();
      if (idle.isEmpty()) {
        return -1;
      }
      Replica<S> replica = idle.get();
      try {
        replica.catchUp(view, run, faults);
        return replica.iteration;
      } catch (Exception e) {   // cancelled, or a broadcast gone (Spark's IOException, undeclared): left new
        replica.iteration = -1;
        LOG.warn("run {}: a replica was not brought to x_{}: {}", runId, view.iteration(), e.toString());
        return -1;
      } finally {
        run.release(replica);
      }
    }
  }
}
