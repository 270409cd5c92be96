package org.bitopk.job.run;

import static org.bitopk.job.config.TrainFlags.DOWNLINK;
import static org.bitopk.job.config.TrainFlags.DOWNLINK_SCHEME;
import static org.bitopk.job.config.TrainFlags.DOWN_MEMORY_RATE;
import static org.bitopk.job.config.TrainFlags.K_DOWN;
import static org.bitopk.job.config.TrainFlags.K_UP;
import static org.bitopk.job.config.TrainFlags.UPLINK;
import static org.bitopk.job.config.TrainFlags.UPLINK_FEEDBACK;
import static org.bitopk.job.config.TrainFlags.UP_MEMORY_RATE;
import static org.bitopk.job.config.TrainFlags.flag;

import java.util.OptionalDouble;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.engine.DownlinkStrategies;
import org.bitopk.job.engine.DownlinkStrategy;
import org.bitopk.job.engine.EvaluationCadence;
import org.bitopk.job.engine.RunPlan;
import org.bitopk.job.engine.UplinkFeedback;
import org.bitopk.job.engine.UplinkSettings;
import org.bitopk.job.problem.TrainingProblem;
import org.jspecify.annotations.Nullable;

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
    int upK = uplinkK(config, dimension);
    int downK = mode != Mode.BIDIRECTIONAL ? 0 : config.kDown().isPresent()
        ? givenK(flag(K_DOWN), config.kDown().getAsInt(), dimension)
        : rounding.targetK(config.densityDown(), dimension);
    DownlinkStrategy downlink = switch (config.downlinkScheme()) {
      case EF -> DownlinkStrategies.compressed(serverCompressor(config), downK, config.valuesDown());
      case EF21_P -> DownlinkStrategies.modelDifference(serverCompressor(config), downK);
      case AVERAGE -> DownlinkStrategies.average();
      case MCM -> DownlinkStrategies.preservedCentralModel(serverCompressor(config), downK,
          memoryRate(flag(DOWN_MEMORY_RATE), flag(DOWNLINK_SCHEME) + " mcm", flag(DOWNLINK), config.downMemoryRate(),
              serverCompressor(config), dimension, downK));
    };
    UplinkFeedback feedback = mode == Mode.DENSE ? UplinkFeedback.NONE : config.uplinkFeedback();
    float upRate = feedback != UplinkFeedback.ARTEMIS ? 1f : memoryRate(flag(UP_MEMORY_RATE),
        flag(UPLINK_FEEDBACK) + " artemis", flag(UPLINK), config.upMemoryRate(), config.uplink(), dimension, upK);
    return RunPlan.builder()
        .mode(mode.cliName())
        .workers(workers)
        .tasks(config.tasks() > 0 ? config.tasks() : Math.max(1, Math.min(workers, taskSlots)))
        .rounds(totalRounds(config, problem.iterationsPerEpoch()), problem.iterationsPerEpoch())
        .uplink(new UplinkSettings(config.uplink(), upK, feedback, (float) config.momentum(), config.seed(), upRate,
            config.valuesUp()))
        .downlink(downlink)
        .learningRate(config.learningRate(), config.lrDecay())
        .consistencyCheckEvery(config.consistencyCheckEvery())
        .window(config.updateWindow(), config.snapshotEvery())
        .xi(config.xi())
        .evalEvery(config.evalEvery())
        .roundsBetweenEvaluations(EvaluationCadence.roundsBetween(config.evalEvery(),
            totalRounds(config, problem.iterationsPerEpoch()), problem.iterationsPerEpoch()))
        .seed(config.seed())
        .divergenceAdvice(divergenceAdvice)
        .captureRounds(config.captureVectors().stream().mapToInt(Integer::intValue).toArray())
        .build();
  }

  /** The uplink's k for a model of {@code dimension}: d when dense, --k-up when given, else from the density. */
  public static int uplinkK(TrainingConfig config, int dimension) {
    return config.mode() == Mode.DENSE ? dimension
        : config.kUp().isPresent() ? givenK(flag(K_UP), config.kUp().getAsInt(), dimension)
        : config.kRounding().targetK(config.densityUp(), dimension);
  }

  /**
   * A memory rate α as given, else the Artemis/MCM authors' 1/(2(ω + 1)) (c = 2 in {@code get_learning_rate} of
   * {@code philipco/mcm-bidirectional-compression}) for an unbiased compressor of known variance ω.
   */
  static float memoryRate(String flag, String scheme, String compressorFlag, OptionalDouble given,
      CompressorSpec compressor, int dimension, int k) {
    if (given.isPresent()) {
      return (float) given.getAsDouble();
    }
    Double omega = omega(compressor, dimension, k);
    if (omega == null) {
      throw new IllegalArgumentException(TrainingConfig.missingRate(flag, scheme, compressorFlag, compressor));
    }
    return (float) (1.0 / (2.0 * (omega + 1.0)));
  }

  /**
   * ω with E‖C(x) − x‖² ≤ ω‖x‖² for the unbiased compressors: d/k − 1 for (d/k)·Random-k, 1/8 for natural
   * compression (Horváth et al. 2019); null for the biased ones.
   */
  public static @Nullable Double omega(CompressorSpec compressor, int dimension, int k) {
    if (!compressor.unbiased()) {
      return null;
    }
    return compressor.name().equals("natural") ? 0.125 : (double) dimension / k - 1.0;
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
