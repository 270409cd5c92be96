package org.bitopk.job.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.bitopk.compression.CompressorSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The states a stopping executor hands over reach the driver whole, and a task that runs a worker whose state it
 * lacks gets the handed-over one from the driver, only when it is the state the round expects (after round t − 1,
 * by the attempt the driver used); otherwise it starts the worker afresh and says the residual was lost. Outside a
 * cluster (this JVM is the driver) the task's question is answered here, through the same request and reply.
 */
class StateHandoverTest {
  private static final String RUN = "state-handover-test";
  private static final int D = 50;
  private static final UplinkSettings UPLINK = new UplinkSettings(CompressorSpec.parse("topk"), 5, true, 0.9f, 11);

  @AfterEach
  void forget() {
    StateHandover.forget(RUN);
    ExecutorRegistry.forget(RUN);
    ExecutorRegistry.forget(RUN + "-taker");
  }

  /** The executor's state of {@code worker} after rounds 0..round, taken by attempt {@code token} last. */
  private static WorkerState stepped(int worker, int round, long token) {
    WorkerState state = WorkerState.fresh(UPLINK, worker, D, 0);
    for (int t = 0; t <= round; t++) {
      float[] gradient = new float[D];
      for (int j = 0; j < D; j++) {
        gradient[j] = (float) Math.sin(worker + t * 0.7 + j * 0.13);
      }
      state.step(gradient, 0.1f, UPLINK, worker, t);
      state.commit(t, t == round ? token : 100 + t);
    }
    return state;
  }

  @Test
  void theDriverKeepsWhatAnExecutorHandsOverAndGivesATaskOnlyTheExpectedState() {
    RunState leaving = ExecutorRegistry.run(RUN);
    leaving.putWorker(2, stepped(2, 4, 77L));
    leaving.putWorker(3, stepped(3, 4, 78L));
    StateHandover.accept(StateHandover.encode(RUN, leaving).orElseThrow());

    Map<Integer, StateHandover.Handed> received = StateHandover.received(RUN);
    assertEquals(List.of(2, 3), received.keySet().stream().sorted().toList());
    WorkerMemory sent = leaving.worker(2).saved(2);
    StateHandover.Handed two = received.get(2);
    assertEquals(4, two.round());
    assertEquals(77L, two.token());
    assertArrayEquals(sent.residual(), two.memory().residual());
    assertArrayEquals(sent.velocity(), two.memory().velocity());

    WorkerMemory answered = StateHandover.ask(RUN, 2, 4, 77L).orElseThrow();
    assertArrayEquals(sent.residual(), answered.residual());
    assertArrayEquals(sent.velocity(), answered.velocity());
    assertEquals(0, StateHandover.reply(StateHandover.request(RUN, 2, 3, 77L)).length, "another round");
    assertEquals(0, StateHandover.reply(StateHandover.request(RUN, 2, 4, 76L)).length, "another attempt's state");
    assertEquals(0, StateHandover.reply(StateHandover.request(RUN, 5, 4, 77L)).length, "a worker never handed over");
    assertEquals(0, StateHandover.reply(StateHandover.request("another-run", 2, 4, 77L)).length);
    assertEquals(0, StateHandover.reply(new byte[] {1, 2, 3, 4, 5}).length, "not a request");
  }

  @Test
  void aTaskWithoutItsWorkersStateTakesTheHandedOverOneAndLosesNothing() {
    RunState leaving = ExecutorRegistry.run(RUN);
    leaving.putWorker(2, stepped(2, 4, 77L));
    StateHandover.accept(StateHandover.encode(RUN, leaving).orElseThrow());
    WorkerState reference = stepped(2, 4, 77L);
    WorkerState lost = stepped(3, 4, 78L);

    long[] expected = new long[4];
    expected[2] = 77L;
    expected[3] = 78L;
    TaskAttempt attempt = TaskAttempt.current(5, expected, new StateLocations(new String[4], List.of(), 0), UPLINK,
        FaultInjector.NONE);
    RunState taker = ExecutorRegistry.run(RUN + "-taker");
    TaskAttempt.Admitted two = attempt.admit(RUN, taker, 2, D);
    TaskAttempt.Admitted three = attempt.admit(RUN, taker, 3, D);

    assertFalse(two.residualLost(), "worker 2's state came from the driver");
    assertEquals(reference.saved(2).bytes(), two.handedOverBytes(), "and moved here with its bytes");
    assertTrue(three.residualLost(), "worker 3's was never handed over: it starts afresh");
    assertEquals(0, three.handedOverBytes());
    assertNotNull(taker.worker(2));
    float[] gradient = new float[D];
    java.util.Arrays.fill(gradient, 0.5f);
    UplinkMemory.Step taken = two.state().step(gradient, 0.1f, UPLINK, 2, 5);
    UplinkMemory.Step undisturbed = reference.step(gradient, 0.1f, UPLINK, 2, 5);
    assertArrayEquals(undisturbed.sent().indices(), taken.sent().indices(), "round 5 as if nothing had moved");
    assertArrayEquals(undisturbed.sent().values(), taken.sent().values());
    assertArrayEquals(reference.memory.memory(), two.state().memory.memory());
    assertFalse(java.util.Arrays.equals(lost.memory.memory(), three.state().memory.memory()));
  }
}
