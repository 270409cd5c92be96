package org.bitopk.lab.baseline;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Measures a system only after it has trained once, untimed, for {@code --warm-up-seconds} from the same start.
 *
 * <p>Why: the systems run one after another in one JVM, so without this the first one pays for the JIT's first
 * compilations, Spark's first jobs and ND4J's first allocations (measured at P = 4: bitopk bidirectional's first 50
 * rounds took 5.8 s as the first system, unidirectional's 2.3 s as the second). The per-round code (Spark's
 * scheduler, the job's round) runs once per round, so it needs hundreds of rounds to be fully compiled: after a 5 s
 * warm-up the first system still took 52 ms per round over its first 100 measured rounds against 24 ms for the
 * second, after 30 s 32 against 29 ms. Each system's warm-up runs its own code paths, so
 * every system is measured warm whatever its place in {@code --systems}. The warm-up trains a separate model
 * from the same seed into a scratch directory that is deleted afterwards; nothing of it reaches the table.
 *
 * <p>A warm-up in seconds is unequal: the first system warms the JVMs' shared code (Spark's scheduler, the
 * executors' first tasks) for everyone after it. On the network lab, bitopk bidirectional as the first system after
 * 5 s took 12.2 s for its first 40 rounds against 0.072 s a round later. So {@code --warm-up-rounds} ({@link
 * #warmUp}) trains every system the same number of rounds before any is measured, and each measured row gives its
 * pace ({@link RoundPace}), first rounds against later ones, to show that it ran warm.
 *
 * <p>A system that fails in its warm-up is reported failed without a measured attempt: it could not train for
 * a few seconds, and a hung master (DL4J's SharedTrainingMaster in local mode) would otherwise hang twice.
 */
final class WarmedUpSystem {
  /** The scratch directory, inside the output directory, of the warm-up runs. */
  static final String SCRATCH = "warm-up";

  private WarmedUpSystem() {}

  /**
   * The system's measured result after a warm-up of {@code warmUpSeconds} (none when 0) into {@code
   * context.directory()}/{@value #SCRATCH}, which is removed afterwards.
   */
  static SystemResult run(ComparedSystem system, ComparedSystem.Context context, double warmUpSeconds,
      FileSystem fs) throws Exception {
    if (warmUpSeconds > 0) {
      Optional<SystemResult> failed = warmUp(system, context, context.settings().withBudget(warmUpSeconds, 1), fs);
      if (failed.isPresent()) {
        return failed.get();
      }
    }
    return system.run(context);
  }

  /**
   * Trains {@code system} once with {@code settings}, untimed, into {@code context.directory()}/{@value #SCRATCH},
   * which is removed afterwards; empty when it trained, else the system's failed result ("in its warm-up: ...",
   * no trace).
   */
  static Optional<SystemResult> warmUp(ComparedSystem system, ComparedSystem.Context context,
      ComparisonSettings settings, FileSystem fs) throws IOException {
    Path scratch = new Path(context.directory(), SCRATCH);
    ComparedSystem.Context warmUp = new ComparedSystem.Context(context.sc(), settings, context.data(), scratch,
        context.console(), context.label());
    SystemResult result;
    try {
      result = system.run(warmUp);
    } catch (Exception | LinkageError e) {
      return Optional.of(SystemResult.failed(system.name(), "did not train", Trace.empty(), "in its warm-up: "
          + e.getClass().getName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse("")));
    } finally {
      delete(fs, scratch);
    }
    if (result.failure() != null) {
      return Optional.of(SystemResult.failed(system.name(), result.details(), Trace.empty(),
          "in its warm-up: " + result.failure()));
    }
    return Optional.empty();
  }

  private static void delete(FileSystem fs, Path scratch) throws IOException {
    if (fs.exists(scratch)) {
      fs.delete(scratch, true);
    }
  }
}
