package org.bitopk.job.engine;

import org.bitopk.compression.Compressor;
import org.bitopk.compression.ErrorFeedback;
import org.jspecify.annotations.Nullable;

/**
 * Per-worker state that lives on an executor across rounds: residual, compressor, momentum buffer, and which
 * round and which task attempt produced it.
 *
 * <p>Spark may run a round's task more than once (a retry after a failure, a speculative copy), and only one
 * attempt's uplink reaches the driver. So the state after round t is tagged with t and with the attempt that
 * computed it (its token), and the state before round t is kept until round t + 1 starts: the memory vector in
 * its second buffer, the momentum in a second buffer, the compressor's state as bytes. A
 * second attempt of round t rolls back to it and advances the worker once more, from the same starting point.
 * The driver passes each round the token of the attempt whose uplink it applied, so a state advanced by an
 * attempt the driver did not use is recognised and discarded, never silently reused.
 *
 * <p>Not thread-safe: callers hold the worker's lock ({@link RunState#lock}).
 */
final class WorkerState {
  /** Token of a state no attempt has advanced yet: fresh, or restored from a checkpoint. */
  static final long INITIAL = -1L;

  /** e_i (EF14), g_i (EF21) or nothing. */
  final UplinkMemory memory;
  final Compressor compressor;
  /** Momentum m_i (worker-side momentum, applied before error feedback), or null without momentum. */
  private float @Nullable [] velocity;
  private float[] previousVelocity;
  private byte[] previousCompressorState;
  /** The last round this state has taken, and the attempt that took it. */
  private int round;
  private long token = INITIAL;
  private int previousRound;
  private long previousToken;
  private boolean canRollBack;

  private WorkerState(UplinkMemory memory, Compressor compressor, float[] velocity, int round) {
    this.memory = memory;
    this.compressor = compressor;
    this.velocity = velocity;
    this.previousVelocity = velocity == null ? null : new float[velocity.length];
    this.round = round;
  }

  /** A worker's state before round {@code firstRound}: zero residual, zero momentum, compressor from its seed. */
  static WorkerState fresh(UplinkSettings uplink, int workerId, int dimension, int firstRound) {
    return new WorkerState(
        freshMemory(uplink, dimension),
        compressor(uplink, workerId),
        uplink.momentum() > 0f ? new float[dimension] : null, firstRound - 1);
  }

  /**
   * A worker's state restored from a checkpoint taken before round {@code firstRound}; what the checkpoint did
   * not collect (see {@link WorkerMemory}) starts afresh: residual and velocity from zero, the compressor from its
   * seed.
   */
  static WorkerState restored(UplinkSettings uplink, int dimension, int firstRound, WorkerMemory saved) {
    UplinkMemory memory = saved.residual() != null ? restoredMemory(uplink, dimension, saved.residual())
        : freshMemory(uplink, dimension);
    float[] velocity = saved.velocity();
    float[] v = uplink.momentum() > 0f ? (velocity != null ? velocity.clone() : new float[dimension]) : null;
    Compressor compressor = compressor(uplink, saved.worker());
    if (saved.compressorState() != null) {
      compressor.restoreState(saved.compressorState());
    }
    return new WorkerState(memory, compressor, v, firstRound - 1);
  }

  /** The memory of a fresh worker: zero residual, or a gradient estimate not yet set. */
  private static UplinkMemory freshMemory(UplinkSettings uplink, int dimension) {
    switch (uplink.feedback()) {
      case EF14:
        return new UplinkMemory.Residual(ErrorFeedback.enabled(dimension), uplink.values());
      case NONE:
        return new UplinkMemory.Residual(ErrorFeedback.disabled(dimension), uplink.values());
      case EF21:
      case ARTEMIS:
        return GradientEstimate.fresh(dimension, uplink.memoryRate());
      default:
        throw new IllegalArgumentException("unknown uplink feedback " + uplink.feedback());
    }
  }

  /** The memory of a worker restored from a checkpoint's memory vector (ignored without feedback: none is kept). */
  private static UplinkMemory restoredMemory(UplinkSettings uplink, int dimension, float[] saved) {
    switch (uplink.feedback()) {
      case EF14:
        return new UplinkMemory.Residual(ErrorFeedback.restore(saved), uplink.values());
      case NONE:
        return freshMemory(uplink, dimension);
      case EF21:
      case ARTEMIS:
        return GradientEstimate.restore(saved, uplink.memoryRate());
      default:
        throw new IllegalArgumentException("unknown uplink feedback " + uplink.feedback());
    }
  }

  private static Compressor compressor(UplinkSettings uplink, int workerId) {
    return uplink.compressor().create(RandomStreams.worker(uplink.seed(), workerId));
  }

  /** What {@link #admit} found. */
  enum Admission {
    /** The state the driver expects before round t: use it. */
    CURRENT,
    /** Round t was already taken by another attempt; rolled back to the state before it. */
    ROLLED_BACK,
    /** Stale, or advanced by an attempt whose result the driver did not use: must be replaced. */
    UNUSABLE,
    /**
     * Already past round t by a later attempt: this attempt belongs to a round the driver has finished (a
     * speculative copy that lost the race) and must not touch the state.
     */
    OBSOLETE
  }

  /** Whether {@link #admit} would let an attempt of round t use this state (a hint: no lock, no change). */
  boolean usableFor(int t, long expectedToken) {
    return (round == t - 1 && token == expectedToken)
        || (round == t && canRollBack && previousRound == t - 1 && previousToken == expectedToken);
  }

  /**
   * Prepares this state for round t, whose predecessor the driver took from the attempt {@code expectedToken}.
   */
  Admission admit(int t, long expectedToken) {
    if (round == t - 1 && token == expectedToken) {
      return Admission.CURRENT;
    }
    if (round == t && canRollBack && previousRound == t - 1 && previousToken == expectedToken) {
      rollBack();
      return Admission.ROLLED_BACK;
    }
    return round >= t ? Admission.OBSOLETE : Admission.UNUSABLE;
  }

  /**
   * The compressor's input for this round: the gradient itself, or with momentum the new m = μ·m + g, formed in
   * the second buffer; the committed m stays untouched until {@link #commit}.
   */
  float[] momentumInput(float[] gradient, float mu) {
    if (velocity == null) {
      return gradient;
    }
    float[] next = previousVelocity;
    float[] current = velocity;
    for (int j = 0; j < next.length; j++) {
      next[j] = mu * current[j] + gradient[j];
    }
    return next;
  }

  /**
   * The worker's compression step of round {@code t}: with input the gradient (or the momentum m = μ·m + g), the
   * memory's step ({@link UplinkMemory#step}; EF14: c = e + lr·input, sent = C(c), e = c − sent). A step that throws
   * leaves the state as it was; an overflow of c is reported as divergence. {@link #commit} follows.
   */
  UplinkMemory.Step step(float[] gradient, float learningRate, UplinkSettings uplink, int workerId, int t) {
    beginStep();
    float[] input = momentumInput(gradient, uplink.momentum());
    try {
      return memory.step(input, learningRate, compressor, uplink.targetK());
    } catch (IllegalArgumentException overflow) {
      abortStep();
      // inputs are finite and of the right shape here, so this is residual + lr * input overflowing
      throw Divergence.overflow(workerId, t, overflow);
    } catch (RuntimeException e) {
      abortStep();
      throw e;
    }
  }

  /** Saves what {@link #rollBack} and {@link #abortStep} need; call before the compressor step of round t. */
  void beginStep() {
    previousCompressorState = compressor.saveState();
    canRollBack = false; // the buffers that held the state before the previous round are about to be reused
  }

  /** The step threw (the memory is left untouched then): undo what the compressor advanced. */
  void abortStep() {
    compressor.restoreState(previousCompressorState);
  }

  /**
   * Records that round t was taken by attempt {@code attemptToken}, right after the error-feedback step: from
   * here on the state is the one after round t, whatever happens to the attempt.
   */
  void commit(int t, long attemptToken) {
    if (velocity != null) {
      float[] swap = velocity;
      velocity = previousVelocity;
      previousVelocity = swap;
    }
    previousRound = round;
    previousToken = token;
    round = t;
    token = attemptToken;
    canRollBack = memory.canRollBack();
  }

  private void rollBack() {
    memory.rollBack();
    if (velocity != null) {
      float[] swap = velocity;
      velocity = previousVelocity;
      previousVelocity = swap;
    }
    compressor.restoreState(previousCompressorState);
    round = previousRound;
    token = previousToken;
    canRollBack = false;
  }

  /** The last round taken (firstRound − 1 before any). */
  int round() {
    return round;
  }

  long token() {
    return token;
  }

  /**
   * The state as it stands (after round {@link #round}), copied: what a checkpoint keeps and a moving worker
   * takes along, installed elsewhere by {@link #restored}.
   */
  WorkerMemory saved(int workerId) {
    return new WorkerMemory(workerId, memory.memory().clone(), velocity(), compressor.saveState());
  }

  /** A copy of the momentum buffer, or null without momentum. */
  float @Nullable [] velocity() {
    return velocity == null ? null : velocity.clone();
  }
}
