package org.bitopk.lab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a DDP restart reads from a failed run: the rank that failed, or the aborted job's message in one line and
 * the executors it says were lost (the message as Spark 4.2 wrote it on the network lab when a cut host's executor
 * was declared lost).
 */
class DdpRestartsTest {
  private static final String ABORTED = "Job aborted due to stage failure: Could not recover from a failed barrier "
      + "ResultStage. Most recent failure reason: Stage failed because barrier task ResultTask(98, 0) finished "
      + "unsuccessfully.\nExecutorLostFailure (executor 2 exited caused by one of the running tasks) Reason: Executor "
      + "heartbeat timed out after 61234 ms\nDriver stacktrace:\n\tat org.apache.spark.scheduler.DAGScheduler.x";

  @Test
  void anAbortedBarrierJobIsItsFirstTwoLinesAndNamesTheLostExecutor() {
    assertEquals("Job aborted due to stage failure: Could not recover from a failed barrier ResultStage. Most recent "
        + "failure reason: Stage failed because barrier task ResultTask(98, 0) finished unsuccessfully. "
        + "ExecutorLostFailure (executor 2 exited caused by one of the running tasks) Reason: Executor heartbeat "
        + "tim...", DdpRestarts.summary(ABORTED));
    assertEquals(Set.of("2"), DdpRestarts.lostExecutors(ABORTED));
    assertEquals(Set.of(), DdpRestarts.lostExecutors("Job aborted due to stage failure: Task 3 failed"));
  }

  @Test
  void theFirstRankThatDidNotExitWithZeroIsTheFailure() {
    assertNull(DdpRestarts.failure(List.of("0\t198.18.0.2\t0\t", "1\t198.18.0.3\t0\t")));
    assertEquals("rank 1 on 198.18.0.3 exited with 1: RuntimeError: Connection closed by peer",
        DdpRestarts.failure(List.of("0\t198.18.0.2\t0\t", "1\t198.18.0.3\t1\tRuntimeError: Connection closed by peer",
            "2\t198.18.0.2\t-5\tstopped: its barrier stage failed")));
  }
}
