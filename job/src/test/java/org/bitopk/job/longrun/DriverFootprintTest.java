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
    for (DriverFootprint.Sample s : samples.subList(samples.size() / 4, samples.size())) {
      // update window (32) + snapshot + 3 shards + destroyed ones not yet removed (asynchronous): a bound, far
      // below the 150+ a leak of one broadcast per round would hold by then
      assertTrue(s.liveBroadcasts() < 80, "live broadcasts at iteration " + s.iteration() + ": " + s.liveBroadcasts());
    }
  }
}
