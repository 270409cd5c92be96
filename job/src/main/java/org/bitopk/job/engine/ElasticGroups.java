package org.bitopk.job.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.api.java.JavaRDD;
import org.bitopk.job.problem.ObjectiveFactory;
import org.jspecify.annotations.Nullable;

/**
 * The worker groups' RDD, kept spread over the executors as they come and go. Before each round
 * ({@link #beforeRound}) the driver looks at the active executors ({@link LiveExecutors}); when they are not
 * those the groups are on (one registered, was lost, or is being decommissioned) the groups are placed again
 * ({@link GroupPlacement#rebalanced}: ⌊S/E⌋ or ⌈S/E⌉ per executor, as few moves as possible), a new grouped RDD
 * is built there (each group's block cut from the data set's files on its executor, as after a loss), and the
 * moved workers' states go with them: taken from an executor still active with a job of the moving groups' tasks,
 * or, from an executor that is leaving, as it handed them over while stopping ({@link StateHandover}). A moved
 * state is installed as the state before the round, as a resumed run's is, so a planned move changes no bit of
 * the run. A worker whose state is nowhere current (its executor crashed) starts afresh where it lands, and its
 * task reports the lost residual. When nothing leaves (an executor joined), the new placement's groups are first
 * built in the background, each where it is to be ({@link GroupsInPreparation}), and the states move at the first
 * boundary after that; a leaving executor's groups move at once.
 */
final class ElasticGroups<S> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ElasticGroups.class);
  /** How long a boundary waits for a leaving executor (still registered) to hand its states over. */
  private static final long DEPARTURE_WAIT_MILLIS = 120_000;
  /** After a leaving executor is gone, how long its handover may still be on its way. */
  private static final long HANDOVER_GRACE_MILLIS = 3_000;

  /** What a boundary moved: workers, the bytes of their states, the time it took, and the states not found. */
  record Move(int workers, long bytes, double millis, int notFound) {
    static final Move NONE = new Move(0, 0, 0, 0);
  }

  private final JavaRDD<S> shards;
  private final int groups;
  private final String runId;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final LiveExecutors executors;
  private GroupPlacement placement;
  private JavaRDD<S> rdd;
  /** The placement being built in the background, if one is. */
  private Optional<GroupsInPreparation<S>> preparing = Optional.empty();
  /** The round about to run or running: an executor's registration is logged with it. */
  private volatile int round;
  /** Logs each executor's registration with the round then running: rounds until it works = move's round − it. */
  private final org.apache.spark.scheduler.SparkListener registrations = new org.apache.spark.scheduler.SparkListener() {
    @Override
    public void onExecutorAdded(org.apache.spark.scheduler.SparkListenerExecutorAdded added) {
      LOG.info("executor {} on {} registered during round {}", added.executorId(), added.executorInfo().executorHost(),
          round);
    }
  };

  ElasticGroups(JavaRDD<S> shards, int groups, String runId, ObjectiveFactory<S> factory, UplinkSettings uplink) {
    this.shards = shards;
    this.groups = groups;
    this.runId = runId;
    this.factory = factory;
    this.uplink = uplink;
    this.executors = new LiveExecutors(shards.context());
    this.placement = GroupPlacement.ofRegisteredExecutors(shards.context());
    this.rdd = WorkerGroups.group(shards, groups, placement);
    shards.context().addSparkListener(registrations);
  }

  JavaRDD<S> rdd() {
    return rdd;
  }

  /**
   * Places the groups again before round {@code t} if the active executors changed; moved workers get
   * {@link WorkerState#INITIAL} in {@code acceptedTokens} and no holder, as after a resume.
   *
   * @param holders per worker, the block manager address of the executor that ran its accepted attempt, or null
   */
  Move beforeRound(int t, long[] acceptedTokens, @Nullable String[] holders) {
    round = t;
    if (shards.context().isLocal()) {
      return Move.NONE;
    }
    List<LiveExecutors.Executor> live = executors.active();
    if (live.isEmpty()) {
      return Move.NONE;   // nothing to move to: the round waits for Spark to bring executors back
    }
    List<String> liveLocations = live.stream().map(LiveExecutors.Executor::location).toList();
    List<String> current = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      String holder = holders[WorkerGroups.firstWorker(g, acceptedTokens.length, groups)];
      LiveExecutors.Executor on = holder == null ? null : executors.byHostPort(holder);
      current.add(on != null ? on.location() : placement.location(g).getOrElse(() -> null));
    }
    List<String> onLive = current.stream().map(e -> e != null && liveLocations.contains(e) ? e : null).toList();
    GroupPlacement target = GroupPlacement.rebalanced(onLive, liveLocations);
    List<Integer> moving = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      if (!target.assignment().get(g).equals(current.get(g))) {
        moving.add(g);
      }
    }
    if (moving.isEmpty()) {
      dropPreparation();
      return Move.NONE;
    }
    Optional<JavaRDD<S>> prepared = Optional.empty();
    if (moving.stream().allMatch(g -> onLive.get(g) != null)) {
      // nothing leaves, an executor is to be filled: its groups are built there in the background while the
      // rounds go on where they are, and move once built, so that the move costs the states' transfer, not the
      // new executor's first tasks
      if (preparing.isEmpty() || !preparing.get().isFor(target)) {
        dropPreparation();
        preparing = Optional.of(GroupsInPreparation.start(rdd, target, moving, runId, factory, t));
      }
      if (!preparing.get().isDone()) {
        return Move.NONE;
      }
      prepared = preparing.get().take(t);
      preparing = Optional.empty();
      if (prepared.isEmpty()) {
        return Move.NONE;
      }
    } else {
      dropPreparation();   // a leaving executor's groups move now
    }
    long start = System.nanoTime();
    Map<Integer, WorkerMemory> found = statesOf(moving, onLive, current, t, acceptedTokens);
    JavaRDD<S> previous = rdd;
    rdd = prepared.isPresent() ? prepared.get() : WorkerGroups.regroup(shards, groups, target);
    placement = target;
    long bytes = 0;
    int workers = 0;
    int notFound = 0;
    Map<Integer, List<WorkerMemory>> restoring = new java.util.LinkedHashMap<>();
    for (int g : moving) {
      List<WorkerMemory> memories = new ArrayList<>();
      for (int w = first(g, acceptedTokens.length); w < first(g + 1, acceptedTokens.length); w++) {
        workers++;
        WorkerMemory memory = found.get(w);
        if (memory == null) {
          notFound++;
          continue;
        }
        memories.add(memory);
        bytes += bytes(memory);
        acceptedTokens[w] = WorkerState.INITIAL;
        holders[w] = null;
      }
      if (!memories.isEmpty()) {
        restoring.put(g, memories);
      }
    }
    restore(restoring, t);
    if (previous != shards) {
      previous.unpersist(false);
    }
    Move move = new Move(workers, bytes, (System.nanoTime() - start) / 1e6, notFound);
    LOG.info("round {}: {} group(s) placed again on {} executor(s): {} worker state(s) moved ({} bytes) in {} ms, "
        + "{} not found", t, moving.size(), live.size(), workers - notFound, bytes, Math.round(move.millis()),
        notFound);
    return move;
  }

  /**
   * Installs each group's states on its executor, one job per group (each task carries its own group's states
   * only), the jobs submitted side by side: their tasks run at once in the executors' free slots.
   */
  private void restore(Map<Integer, List<WorkerMemory>> memoriesByGroup, int t) {
    List<java.util.concurrent.CompletableFuture<Void>> jobs = new ArrayList<>();
    for (Map.Entry<Integer, List<WorkerMemory>> group : memoriesByGroup.entrySet()) {
      jobs.add(DriverThread.start("bitopk-restore-group-" + group.getKey(), () ->
          WorkerMemories.restoreGroup(rdd, group.getKey(), runId, factory, uplink, group.getValue(), t)));
    }
    for (java.util.concurrent.CompletableFuture<Void> job : jobs) {
      try {
        job.join();
      } catch (java.util.concurrent.CompletionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw e;
      }
    }
  }

  /** The current states of the moving groups' workers, by worker: from active executors, else handed over. */
  private Map<Integer, WorkerMemory> statesOf(List<Integer> moving, List<String> onLive, List<String> current,
      int t, long[] acceptedTokens) {
    int workers = acceptedTokens.length;
    Map<Integer, WorkerMemory> found = new java.util.HashMap<>();
    List<Integer> fromLive = moving.stream().filter(g -> onLive.get(g) != null).toList();
    if (!fromLive.isEmpty()) {
      for (WorkerMemory m : WorkerMemories.collectGroups(rdd, fromLive, runId, factory, t, acceptedTokens)) {
        if (m.residual() != null || m.compressorState() != null) {
          found.put(m.worker(), m);
        }
      }
    }
    Set<Integer> leaving = new HashSet<>();
    Set<String> leavingExecutors = new HashSet<>();
    for (int g : moving) {
      if (onLive.get(g) == null) {
        for (int w = first(g, workers); w < first(g + 1, workers); w++) {
          leaving.add(w);
        }
        leavingExecutors.add(current.get(g));
      }
    }
    if (!leaving.isEmpty()) {
      found.putAll(handedOver(leaving, leavingExecutors, t, acceptedTokens));
    }
    return found;
  }

  /**
   * Waits for the states of {@code workers} from the executors leaving: while any of them is still registered
   * (decommissioning: it stops once its tasks end), then a short grace for the message. Only a state after round
   * t − 1 from the attempt the driver used counts.
   */
  private Map<Integer, WorkerMemory> handedOver(Set<Integer> workers, Set<String> leaving, int t,
      long[] acceptedTokens) {
    long deadline = System.nanoTime() + DEPARTURE_WAIT_MILLIS * 1_000_000L;
    long goneAt = -1;
    while (true) {
      Map<Integer, WorkerMemory> current = new java.util.HashMap<>();
      StateHandover.received(runId).forEach((w, handed) -> {
        if (workers.contains(w) && handed.round() == t - 1 && handed.token() == acceptedTokens[w]) {
          current.put(w, handed.memory());
        }
      });
      boolean registered = false;
      Set<String> ids = executors.registered();
      for (String location : leaving) {
        registered |= location != null && ids.stream().anyMatch(id -> location.endsWith("_" + id));
      }
      long now = System.nanoTime();
      if (!registered && goneAt < 0) {
        goneAt = now;
      }
      if (current.size() == workers.size() || now > deadline
          || (goneAt >= 0 && now - goneAt > HANDOVER_GRACE_MILLIS * 1_000_000L)) {
        return current;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return current;
      }
    }
  }

  private int first(int group, int workers) {
    return WorkerGroups.firstWorker(group, workers, groups);
  }

  private static long bytes(WorkerMemory m) {
    return Float.BYTES * ((m.residual() == null ? 0L : m.residual().length)
        + (m.velocity() == null ? 0L : m.velocity().length))
        + (m.compressorState() == null ? 0 : m.compressorState().length);
  }

  private void dropPreparation() {
    preparing.ifPresent(GroupsInPreparation::discard);
    preparing = Optional.empty();
  }

  /** Drops the grouped RDD (not the problem's own shards) and any placement being built. */
  void release() {
    shards.context().removeSparkListener(registrations);
    dropPreparation();
    if (rdd != shards) {
      rdd.unpersist(false);
    }
  }
}
