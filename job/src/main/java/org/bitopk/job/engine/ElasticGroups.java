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
 * ({@link GroupPlacement#rebalanced}: ⌊S/E⌋ or ⌈S/E⌉ per executor, as few moves as possible) and the moved
 * workers' states go with them, with no Spark job of their own: they reach the driver in the results of the round
 * before the move (the departing workers' tasks add them to their reports, {@link #departing}) or, from an
 * executor that is leaving, as it handed them over while stopping ({@link StateHandover}); and they reach their
 * new executor inside the move's round's own tasks, each in the partition of its group's task, installed before
 * the step as a resumed run's are ({@link ArrivingStates}), so a planned move changes no bit of the run. A worker
 * whose state is nowhere current (its executor crashed) starts afresh where it lands, and its task reports the
 * lost residual. When nothing leaves (an executor joined), the new placement's groups are first built in the
 * background, each where it is to be ({@link GroupsInPreparation}); once they are, the replicas waiting there are
 * brought to x_t beside the rounds ({@link ArrivingReplicas}), the next round's tasks of the moving groups return
 * their states, and the round after it runs on the new placement. A leaving executor's groups
 * move at once, their blocks built by the move's round itself where its tasks run (a moving one cut from the files,
 * or fetched from the leaving executor while it still has it).
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

    /**
     * The workers whose tasks took a state handed over by a departed executor ({@link WorkerReport#handedOverBytes}):
     * moved within the round, by Spark rather than by a placement, with no time of the boundary's.
     */
    static Move handedOverIn(List<WorkerReport> reports) {
      int workers = 0;
      long bytes = 0;
      for (WorkerReport r : reports) {
        workers += r.handedOverBytes > 0 ? 1 : 0;
        bytes += r.handedOverBytes;
      }
      return new Move(workers, bytes, 0, 0);
    }

    Move plus(Move other) {
      return new Move(workers + other.workers, bytes + other.bytes, millis + other.millis, notFound + other.notFound);
    }
  }

  /**
   * A placement built where it is to be by round {@code built}; {@code moving} are the groups it moves. The
   * replicas waiting there catch up during rounds built and built + 1, the moving groups' tasks return their
   * states in round built + 1, and the groups move before round built + 2.
   */
  private record Ready<S>(GroupPlacement target, JavaRDD<S> rdd, List<Integer> moving, int built) {}

  private final JavaRDD<S> shards;
  private final int groups;
  private final String runId;
  private final ObjectiveFactory<S> factory;
  private final UplinkSettings uplink;
  private final LiveExecutors executors;
  private final ExecutorArrivals arrivals;
  private GroupPlacement placement;
  private JavaRDD<S> rdd;
  /** The placement being built in the background, if one is. */
  private Optional<GroupsInPreparation<S>> preparing = Optional.empty();
  /** The placement built, to move to at the next boundary. */
  private Optional<Ready<S>> ready = Optional.empty();
  /** The RDD the groups left, dropped once the round after the move has read through it. */
  private Optional<JavaRDD<S>> retired = Optional.empty();
  /** The workers whose reports carry their state this round. */
  private int[] departing = new int[0];
  /** The states the previous round's reports carried, by worker: each the state after that round. */
  private Map<Integer, WorkerMemory> carried = Map.of();
  /** This round's RDD when moved groups' tasks install states, until the round has run. */
  private Optional<ArrivingStates<S>> arriving = Optional.empty();
  /** The joining executor's replicas being brought to the x_t of the round its groups were built by. */
  private Optional<ArrivingReplicas> catchingUp = Optional.empty();

  ElasticGroups(JavaRDD<S> shards, int groups, String runId, ObjectiveFactory<S> factory, UplinkSettings uplink,
      int firstRound) {
    this.shards = shards;
    this.groups = groups;
    this.runId = runId;
    this.factory = factory;
    this.uplink = uplink;
    this.executors = new LiveExecutors(shards.context());
    this.arrivals = new ExecutorArrivals(shards.context(), firstRound);
    this.placement = GroupPlacement.ofRegisteredExecutors(shards.context());
    this.rdd = WorkerGroups.group(shards, groups, placement);
  }

  /** The groups' RDD as placed now (cached, one block per group). */
  JavaRDD<S> rdd() {
    return rdd;
  }

  /** The RDD of this round's job: the groups', with the moved workers' states in their tasks' partitions. */
  JavaRDD<S> roundRdd() {
    return arriving.map(ArrivingStates::javaRdd).orElse(rdd);
  }

  /** The workers, in increasing order, whose tasks this round return their state with their report. */
  int[] departing() {
    return departing.clone();
  }

  /**
   * Keeps the states the round's reports carry (the driver's accepted attempts') for the next boundary; returns
   * the executors that registered during the run and worked for the first time this round.
   */
  List<ExecutorArrivals.FirstWork> afterRound(int t, List<WorkerReport> reports) {
    Map<Integer, WorkerMemory> states = new java.util.HashMap<>();
    Set<String> ran = new java.util.LinkedHashSet<>();
    for (WorkerReport r : reports) {
      if (r.departing != null) {
        states.put(r.workerId, r.departing);
      }
      ran.add(r.executor);
    }
    carried = states;
    dropArriving();
    return shards.context().isLocal() ? List.of() : arrivals.firstWork(t, ran);
  }

  /**
   * Once round t's task is made, with its downlink {@code view}: in the round by which a joining executor's groups
   * were built, its replicas are brought to x_t beside the round's job ({@link ArrivingReplicas}); they have that
   * round and the next, and the move's boundary waits for them, so that the move's round finds them there.
   */
  void duringRound(DownlinkWindow window, DownlinkView view, FaultInjector faults) {
    if (ready.isPresent() && ready.get().built() == view.iteration() && catchingUp.isEmpty()) {
      catchingUp = Optional.of(ArrivingReplicas.start(ready.get().rdd(), ready.get().moving(), runId, view, faults,
          window.hold()));
    }
  }

  /**
   * Places the groups again before round {@code t} if the active executors changed; moved workers get
   * {@link WorkerState#INITIAL} in {@code acceptedTokens} and no holder, as after a resume.
   *
   * @param holders per worker, the block manager address of the executor that ran its accepted attempt, or null
   */
  Move beforeRound(int t, long[] acceptedTokens, @Nullable String[] holders) {
    arrivals.roundStarts(t);
    dropArriving();   // a round that failed before afterRound
    retired.ifPresent(r -> r.unpersist(false));   // the round after the move has read through it
    retired = Optional.empty();
    departing = new int[0];
    Map<Integer, WorkerMemory> returned = carried;
    carried = Map.of();
    if (shards.context().isLocal()) {
      return Move.NONE;
    }
    List<LiveExecutors.Executor> live = executors.active();
    if (live.isEmpty()) {
      dropReady();
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
      dropReady();
      return Move.NONE;
    }
    if (ready.isPresent() && !ready.get().target().assignment().equals(target.assignment())) {
      dropReady();
    }
    JavaRDD<S> next;
    if (ready.isPresent() && t == ready.get().built() + 1) {
      departing = workersOf(moving, acceptedTokens.length);
      LOG.info("round {}: the moving groups' tasks return their workers' states; the groups move before round {}",
          t, t + 1);
      return Move.NONE;
    }
    if (ready.isPresent()) {
      int built = ready.get().built();
      catchingUp.ifPresent(replicas -> replicas.await(built));   // before the move's round borrows them
      catchingUp = Optional.empty();
      next = ready.get().rdd();
      ready = Optional.empty();
    } else if (moving.stream().allMatch(g -> onLive.get(g) != null)) {
      // nothing leaves, an executor is to be filled: its groups are built there in the background while the
      // rounds go on where they are, so that the move costs the states' transfer, not the new executor's first
      // tasks; once built, the replicas there catch up, the next round's tasks of the moving groups return their
      // states, and the round after it moves
      if (preparing.isEmpty() || !preparing.get().isFor(target)) {
        dropPreparation();
        preparing = Optional.of(GroupsInPreparation.start(rdd, target, moving, runId, factory, uplink, t,
            slots(target, moving, live)));
      }
      if (!preparing.get().isDone()) {
        return Move.NONE;
      }
      Optional<JavaRDD<S>> prepared = preparing.get().take(t);
      preparing = Optional.empty();
      if (prepared.isPresent()) {
        ready = Optional.of(new Ready<>(target, prepared.get(), List.copyOf(moving), t));
      }
      return Move.NONE;
    } else {
      dropPreparation();   // a leaving executor's groups move now
      next = WorkerGroups.moved(rdd, target);
    }
    long start = System.nanoTime();
    Map<Integer, WorkerMemory> found = statesOf(moving, onLive, current, t, acceptedTokens, returned);
    if (rdd != shards) {
      retired = Optional.of(rdd);
    }
    rdd = next;
    placement = target;
    long bytes = 0;
    int workers = 0;
    int notFound = 0;
    Map<Integer, List<WorkerMemory>> installing = new java.util.LinkedHashMap<>();
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
        bytes += memory.bytes();
        acceptedTokens[w] = WorkerState.INITIAL;
        holders[w] = null;
      }
      if (!memories.isEmpty()) {
        installing.put(g, memories);
      }
    }
    if (!installing.isEmpty()) {
      arriving = Optional.of(ArrivingStates.of(rdd, runId, factory, uplink, t, installing,
          ArrivingStates.INLINE_BYTES));
    }
    Move move = new Move(workers, bytes, (System.nanoTime() - start) / 1e6, notFound);
    LOG.info("round {}: {} group(s) placed again on {} executor(s): {} worker state(s) moved ({} bytes) with the "
        + "round's tasks, {} not found", t, moving.size(), live.size(), workers - notFound, bytes, notFound);
    return move;
  }

  /** The task slots of the executors {@code moving} groups go to, the fewest of them. */
  private int slots(GroupPlacement target, List<Integer> moving, List<LiveExecutors.Executor> live) {
    return live.stream().filter(e -> moving.stream().anyMatch(g -> target.assignment().get(g).equals(e.location())))
        .mapToInt(e -> arrivals.slots(e.id())).min().orElse(1);
  }

  /** The workers of {@code groups}, in increasing order. */
  private int[] workersOf(List<Integer> moving, int workers) {
    List<Integer> out = new ArrayList<>();
    for (int g : moving) {
      for (int w = first(g, workers); w < first(g + 1, workers); w++) {
        out.add(w);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * The current states of the moving groups' workers, by worker: those the previous round's reports returned,
   * else from active executors (a job of the groups' tasks, when a placement changed after the states were asked
   * for), else handed over.
   */
  private Map<Integer, WorkerMemory> statesOf(List<Integer> moving, List<String> onLive, List<String> current,
      int t, long[] acceptedTokens, Map<Integer, WorkerMemory> returned) {
    int workers = acceptedTokens.length;
    Map<Integer, WorkerMemory> found = new java.util.HashMap<>();
    List<Integer> fromLive = new ArrayList<>();
    for (int g : moving) {
      boolean all = true;
      for (int w = first(g, workers); w < first(g + 1, workers); w++) {
        WorkerMemory m = returned.get(w);
        if (m != null) {
          found.put(w, m);
        }
        all &= m != null;
      }
      if (!all && onLive.get(g) != null) {
        fromLive.add(g);
      }
    }
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
          if (!found.containsKey(w)) {
            leaving.add(w);
          }
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

  private void dropPreparation() {
    preparing.ifPresent(GroupsInPreparation::discard);
    preparing = Optional.empty();
  }

  private void dropArriving() {
    arriving.ifPresent(ArrivingStates::release);
    arriving = Optional.empty();
  }

  private void dropCatchingUp() {
    catchingUp.ifPresent(ArrivingReplicas::cancel);
    catchingUp = Optional.empty();
  }

  private void dropReady() {
    dropCatchingUp();
    ready.ifPresent(r -> r.rdd().unpersist(false));
    ready = Optional.empty();
  }

  /** Drops the grouped RDD (not the problem's own shards) and any placement being built or built. */
  void release() {
    arrivals.release();
    dropCatchingUp();
    dropArriving();
    dropPreparation();
    dropReady();
    retired.ifPresent(r -> r.unpersist(false));
    if (rdd != shards) {
      rdd.unpersist(false);
    }
  }
}
