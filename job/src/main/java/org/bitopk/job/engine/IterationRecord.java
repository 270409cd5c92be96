package org.bitopk.job.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.bitopk.job.problem.Evaluation;
import org.jspecify.annotations.Nullable;

/**
 * One line of {@code metrics/iterations.jsonl} (the contract in job/docs/run-output.md). {@code iteration} is the
 * 0-based round t whose gradients were computed at x_t; {@code epoch} is the 1-based epoch it belongs to. Times of
 * workers (gradient, compress) are means over workers; {@code time_job_ms} is the wall time of the Spark job and
 * {@code time_task_path_ms} the part of it the tasks' own work accounts for (see {@link RoundStatistics}).
 * {@code down_bytes} is one broadcast payload; {@code down_bytes_delivered} what reached the receivers: the
 * payload times P, plus a dense snapshot for every replica that reloaded one. {@code down_nnz} counts the
 * coordinates the downlink selected, {@code down_stats} the running statistics sent densely beside them.
 * {@code moved_workers} counts the workers whose groups were placed on another executor before the round
 * ({@link ElasticGroups}) or whose task took a state a departed executor handed over ({@link StateHandover}),
 * {@code moved_bytes} the bytes of the states that went with them (inside the round's tasks, or from the driver),
 * {@code time_move_ms} the driver's own part of the move before the round's job (part of the round's total);
 * {@code departing_workers} counts the workers whose reports carried their state to the driver because their group
 * moves to an executor that joined before the next round. {@code rounds_to_work}, only on a round that
 * is the first with work of executors that registered during the run, gives each such executor's rounds from its
 * registration ({@link ExecutorArrivals}).
 * {@code test_loss} and {@code test_accuracy} are present only on a round after which the test set was evaluated
 * inside an epoch ({@link EvaluationCadence}): of the model after the round's update, x_{t+1}.
 */
@JsonPropertyOrder(alphabetic = false)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record IterationRecord(
    @JsonProperty("run") String run,
    @JsonProperty("mode") String mode,
    @JsonProperty("workers") int workers,
    @JsonProperty("tasks") int tasks,
    @JsonProperty("iteration") long iteration,
    @JsonProperty("epoch") int epoch,
    @JsonProperty("loss") double loss,
    @JsonProperty("lr") double lr,
    @JsonProperty("up_bytes") long upBytes,
    @JsonProperty("down_bytes") long downBytes,
    @JsonProperty("down_bytes_delivered") long downBytesDelivered,
    @JsonProperty("up_nnz") long upNnz,
    @JsonProperty("down_nnz") long downNnz,
    @JsonProperty("down_stats") int downStats,
    @JsonProperty("agg_nnz") long aggNnz,
    @JsonProperty("up_target_k") int upTargetK,
    @JsonProperty("up_achieved_k") double upAchievedK,
    @JsonProperty("down_target_k") int downTargetK,
    @JsonProperty("down_achieved_k") int downAchievedK,
    @JsonProperty("delta_up") double deltaUp,
    @JsonProperty("delta_down") double deltaDown,
    @JsonProperty("xi") @Nullable Double xi,
    @JsonProperty("optimality_gap") @Nullable Double optimalityGap,
    @JsonProperty("lost_residuals") int lostResiduals,
    @JsonProperty("replica_resyncs") int replicaResyncs,
    @JsonProperty("rolled_back") int rolledBack,
    @JsonProperty("departing_workers") int departingWorkers,
    @JsonProperty("moved_workers") int movedWorkers,
    @JsonProperty("moved_bytes") long movedBytes,
    @JsonProperty("time_move_ms") double timeMoveMs,
    @JsonProperty("rounds_to_work") @Nullable List<Integer> roundsToWork,
    @JsonProperty("time_gradient_ms") double timeGradientMs,
    @JsonProperty("time_compress_ms") double timeCompressMs,
    @JsonProperty("time_catchup_ms") double timeCatchupMs,
    @JsonProperty("time_job_ms") double timeJobMs,
    @JsonProperty("time_task_path_ms") double timeTaskPathMs,
    @JsonProperty("time_aggregate_ms") double timeAggregateMs,
    @JsonProperty("time_broadcast_ms") double timeBroadcastMs,
    @JsonProperty("time_total_ms") double timeTotalMs,
    @JsonProperty("test_loss") @Nullable Double testLoss,
    @JsonProperty("test_accuracy") @Nullable Double testAccuracy) {

  /** Driver-side wall times of one round, in milliseconds. */
  record Times(double jobMs, double aggregateMs, double broadcastMs, double totalMs) {}

  /** The record of round t from its parts. */
  static IterationRecord of(String runId, RunPlan plan, int t, double lr, RoundStatistics workers,
      ServerAggregator.Round server, RunCounters round, OptionalDouble gap, ElasticGroups.Move move,
      List<ExecutorArrivals.FirstWork> firstWork, Times times, Optional<Evaluation> evaluation) {
    return new IterationRecord(runId, plan.mode(), plan.workers(), plan.tasks(), t, t / plan.roundsPerEpoch() + 1,
        workers.meanLoss(), lr, workers.upBytes(), round.downBytes(), round.downDeliveredBytes(), server.upNnz(),
        server.downNnz(), server.statistics(), server.aggregateNnz(), plan.uplink().targetK(),
        workers.meanAchievedK(), server.downTargetK(), server.downAchievedK(), workers.deltaUp(), server.deltaDown(),
        boxed(server.xi()), boxed(gap),
        workers.lostResiduals(), workers.replicaResyncs(), workers.rolledBack(), workers.departing(),
        move.workers(), move.bytes(), move.millis(),
        firstWork.isEmpty() ? null : firstWork.stream().map(ExecutorArrivals.FirstWork::rounds).toList(),
        workers.gradientMs(), workers.compressMs(), workers.catchUpMs(), times.jobMs(), workers.taskPathMs(),
        times.aggregateMs(), times.broadcastMs(), times.totalMs(),
        evaluation.map(Evaluation::loss).orElse(null),
        evaluation.map(Evaluation::accuracy).orElse(null));
  }

  /** JSON's side of an optional figure: absent (null, left out of the line) when empty. */
  private static @Nullable Double boxed(OptionalDouble figure) {
    return figure.isPresent() ? Double.valueOf(figure.getAsDouble()) : null;
  }
}
