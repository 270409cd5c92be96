package org.bitopk.job.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.bitopk.compression.SparseCodec;
import org.bitopk.compression.SparseVector;
import org.bitopk.job.problem.ObjectiveFactory;

/** Everything one run keeps on one executor JVM: worker states, a pool of replicas, decoded updates. */
final class RunState implements Replica.DecodedUpdates {
  private final Map<Integer, WorkerState> workers = new ConcurrentHashMap<>();
  private final Map<Integer, Object> locks = new ConcurrentHashMap<>();
  private final ArrayDeque<Replica<?>> free = new ArrayDeque<>();
  private final List<Replica<?>> all = new ArrayList<>();
  private final Map<Integer, SparseVector> decoded = new ConcurrentHashMap<>();

  private volatile int[] statisticsIndices;

  /** The factory's statistics indices, derived once per run on this executor. */
  int[] statisticsIndices(ObjectiveFactory<?> factory) {
    int[] out = statisticsIndices;
    if (out == null) {
      out = factory.statisticsIndices();
      statisticsIndices = out;
    }
    return out;
  }

  WorkerState worker(int workerId) {
    return workers.get(workerId);
  }

  /** The workers this executor holds a state of, in id order. */
  List<Integer> workerIds() {
    return workers.keySet().stream().sorted().toList();
  }

  void forgetWorker(int workerId) {
    workers.remove(workerId);
  }

  void putWorker(int workerId, WorkerState state) {
    workers.put(workerId, state);
  }

  /**
   * Drops the states whose last round is before {@code round}: no attempt of a later round can use them (every
   * worker takes every round), so they are those of workers that moved to another executor.
   */
  void forgetWorkersBefore(int round) {
    for (int worker : workerIds()) {
      synchronized (lock(worker)) {
        WorkerState state = workers.get(worker);
        if (state != null && state.round() < round) {
          workers.remove(worker);
        }
      }
    }
  }

  /**
   * The worker's lock: held from checking its state to committing the round, so that two attempts of one
   * round on this executor (a retry beside a slow original) take turns instead of corrupting each other.
   */
  Object lock(int workerId) {
    return locks.computeIfAbsent(workerId, id -> new Object());
  }

  /** Borrows the free replica closest to (and not beyond) iteration t, or creates one. */
  @SuppressWarnings("unchecked")
  <S> Replica<S> borrow(ObjectiveFactory<S> factory, int t) {
    synchronized (free) {
      Replica<?> best = null;
      for (Replica<?> r : free) {
        if (r.iteration <= t && (best == null || r.iteration > best.iteration)) {
          best = r;
        }
      }
      if (best == null && !free.isEmpty()) {
        best = free.peekFirst();
      }
      if (best != null) {
        free.remove(best);
        return (Replica<S>) best;
      }
    }
    Replica<S> created = new Replica<>(factory.create());
    synchronized (free) {
      all.add(created);
    }
    return created;
  }

  /** Borrows a free replica, if there is one, without creating one. */
  @SuppressWarnings("unchecked")
  <S> Optional<Replica<S>> borrowIdle() {
    synchronized (free) {
      return Optional.ofNullable((Replica<S>) free.pollFirst());
    }
  }

  void release(Replica<?> replica) {
    synchronized (free) {
      free.addFirst(replica);
    }
  }

  /** Decodes each update once per executor; keeps only updates that are still in some window. */
  @Override
  public SparseVector decodedUpdate(int iteration, DownlinkView view) {
    return decoded.computeIfAbsent(iteration, s -> SparseCodec.decode(view.encodedUpdate(s)));
  }

  @Override
  public boolean hasDecoded(int iteration) {
    return decoded.containsKey(iteration);
  }

  void forgetUpdatesBefore(int iteration) {
    decoded.keySet().removeIf(s -> s < iteration);
  }

  /** Snapshot of every replica's (iteration, canonical parameters, model parameters), for tests. */
  List<ReplicaSnapshot> replicas() {
    List<ReplicaSnapshot> out = new ArrayList<>();
    synchronized (free) {
      for (Replica<?> r : all) {
        out.add(new ReplicaSnapshot(r.iteration, r.parameters.clone(), r.objective.modelParameters()));
      }
    }
    return out;
  }

  void close() {
    synchronized (free) {
      for (Replica<?> r : all) {
        r.objective.close();
      }
      all.clear();
      free.clear();
    }
    workers.clear();
    decoded.clear();
  }
}
