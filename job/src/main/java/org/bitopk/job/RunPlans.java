package org.bitopk.job;

import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.job.engine.DownlinkStrategy;
import org.bitopk.job.engine.RunPlan;
import org.bitopk.job.engine.UplinkFeedback;
import org.bitopk.job.engine.UplinkSettings;
import org.bitopk.job.problem.TrainingProblem;

/** Resolves a run's settings, its problem and the cluster's size into the engine's {@link RunPlan}, once. */
public final class RunPlans {
  private RunPlans() {}

  /**
   * @param taskSlots the cluster's task slots (Spark's default parallelism): the default number of tasks
   * @param divergenceAdvice appended to a divergence message (e.g. where the last checkpoint is)
   */
  public static RunPlan of(TrainingConfig config, TrainingProblem<?> problem, int taskSlots, String divergenceAdvice) {
    int dimension = problem.objectiveFactory().dimension();
    int workers = problem.workers();
    Mode mode = config.mode();
    KRounding rounding = config.kRounding();
    int upK = mode == Mode.DENSE ? dimension
        : config.kUp() != null ? givenK("--k-up", config.kUp(), dimension)
        : rounding.targetK(config.densityUp(), dimension);
    int downK = mode != Mode.BIDIRECTIONAL ? 0 : config.kDown() != null
        ? givenK("--k-down", config.kDown(), dimension) : rounding.targetK(config.densityDown(), dimension);
    DownlinkStrategy downlink = switch (config.downlinkScheme()) {
      case EF -> DownlinkStrategy.compressed(serverCompressor(config), downK);
      case EF21_P -> DownlinkStrategy.modelDifference(serverCompressor(config), downK);
      case AVERAGE -> DownlinkStrategy.average();
      case MCM -> throw new IllegalArgumentException("--downlink-scheme: mcm is not implemented");
    };
    UplinkFeedback feedback = mode == Mode.DENSE ? UplinkFeedback.NONE : config.uplinkFeedback();
    return RunPlan.builder()
        .mode(mode.cliName())
        .workers(workers)
        .tasks(config.tasks() > 0 ? config.tasks() : Math.max(1, Math.min(workers, taskSlots)))
        .rounds(totalRounds(config, problem.iterationsPerEpoch()), problem.iterationsPerEpoch())
        .uplink(new UplinkSettings(config.uplink(), upK, feedback, (float) config.momentum(), config.seed()))
        .downlink(downlink)
        .learningRate(config.learningRate(), config.lrDecay())
        .consistencyCheckEvery(config.consistencyCheckEvery())
        .window(config.updateWindow(), config.snapshotEvery())
        .xi(config.xi())
        .evalEvery(config.evalEvery())
        .seed(config.seed())
        .divergenceAdvice(divergenceAdvice)
        .captureRounds(config.captureVectors().stream().mapToInt(Integer::intValue).toArray())
        .build();
  }

  /** A k given directly (--k-up, --k-down), at most the dimension. */
  private static int givenK(String flag, int k, int dimension) {
    if (k > dimension) {
      throw new IllegalArgumentException(flag + " " + k + ": exceeds the model's dimension d = " + dimension);
    }
    return k;
  }

  /** Tests and embedding: the plan on a context whose task slots are {@code taskSlots}, no advice. */
  public static RunPlan of(TrainingConfig config, TrainingProblem<?> problem, int taskSlots) {
    return of(config, problem, taskSlots, "");
  }

  /**
   * The downlink compressor: with the reference rounding, Zou's server keeps the entries strictly above the
   * k-th largest, so plain topk becomes topk:strict there.
   */
  static CompressorSpec serverCompressor(TrainingConfig config) {
    CompressorSpec spec = config.downlink();
    return config.kRounding() == KRounding.REFERENCE && spec.name().equals("topk") && !spec.strict()
        ? CompressorSpec.parse("topk:strict") : spec;
  }

  /** epochs × rounds per epoch, capped by --max-iterations when given. */
  static long totalRounds(TrainingConfig config, int roundsPerEpoch) {
    long total = (long) config.epochs() * roundsPerEpoch;
    return config.maxIterations() > 0 ? Math.min(total, config.maxIterations()) : total;
  }
}
