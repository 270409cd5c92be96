package org.bitopk.job.longrun;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The long-run check (LongRunCheck) over 600 rounds, in every build: the number of broadcasts the driver
 * keeps is bounded by the update window, not by the round number, and the heap does not climb.
 */
class DriverFootprintTest {

  @Test
  void broadcastsAndHeapDoNotGrowWithTheRoundNumber(@TempDir Path tmp) throws Exception {
    List<DriverFootprint.Sample> samples = LongRunCheck.run(tmp, 600, 50, 200);
    LongRunCheck.assertFlat(samples, 4L << 20);
    for (DriverFootprint.Sample s : samples) {
      // update window (32) + snapshot + shards + checkpoint restores: far below one per round
      assertTrue(s.liveBroadcasts() < 60, "live broadcasts at iteration " + s.iteration() + ": " + s.liveBroadcasts());
    }
  }
}
