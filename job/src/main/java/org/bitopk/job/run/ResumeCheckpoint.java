package org.bitopk.job.run;

import static org.bitopk.job.config.TrainFlags.RESUME;
import static org.bitopk.job.config.TrainFlags.flag;

import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.Path;
import org.bitopk.job.BadInputException;
import org.bitopk.job.checkpoint.Checkpoint;
import org.bitopk.job.checkpoint.CheckpointStore;
import org.bitopk.job.checkpoint.ConfigDigest;

/**
 * The checkpoint a {@code --resume} continues from: the newest intact one of the run, written with the same
 * arithmetic. Refused in one line that says why there is none: no checkpoint was written, only another run's are
 * there, or every one there is damaged (then only starting again helps).
 */
final class ResumeCheckpoint {
  private ResumeCheckpoint() {}

  /** @throws BadInputException naming the checkpoint directory and what to do */
  static Checkpoint latest(CheckpointStore store, String runId, String digest) {
    Checkpoint checkpoint;
    try {
      checkpoint = store.latest(runId).orElse(null);
      if (checkpoint == null) {
        String others = store.latest().map(c -> " (there are checkpoints of another run, " + c.runId()
            + ", which this directory's config.json does not describe)").orElse("");
        List<Path> files = store.listNewestFirst();
        String why = !others.isEmpty() || files.isEmpty() ? others + " (checkpoints are written with "
            + "--checkpoint-every N)" : ": " + (files.size() == 1 ? "its checkpoint file " : "all its " + files.size()
            + " checkpoint files ") + "(" + files.stream().map(Path::getName).collect(Collectors.joining(", "))
            + ") " + (files.size() == 1 ? "is" : "are") + " damaged (truncated or corrupted), so the run cannot "
            + "continue: start it again with --overwrite";
        throw new BadInputException(flag(RESUME) + ": no intact checkpoint of run " + runId + " in "
            + store.directory() + why);
      }
    } catch (IOException e) {
      throw new BadInputException(flag(RESUME) + ": cannot read the checkpoints in " + store.directory() + ": "
          + e.getMessage(), e);
    }
    if (!checkpoint.configDigest().equals(digest)) {
      throw new BadInputException(flag(RESUME) + ": settings differ from the checkpointed run's: "
          + ConfigDigest.differences(checkpoint.configDigest(), digest));
    }
    return checkpoint;
  }
}
