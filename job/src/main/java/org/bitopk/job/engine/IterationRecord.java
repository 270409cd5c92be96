package org.bitopk.job.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One line of {@code metrics/iterations.jsonl} (the README's contract). {@code iteration} is the 0-based round
 * t whose gradients were computed at x_t; {@code epoch} is the 1-based epoch it belongs to. Times of workers
 * (gradient, compress) are means over workers; {@code time_job_ms} is the wall time of the Spark job and
 * {@code time_task_path_ms} the part of it the tasks' own work accounts for: the makespan of their measured
 * times (catch-up + gradient + compress) list-scheduled in partition order onto the default parallelism's
 * slots, so {@code time_job_ms - time_task_path_ms} estimates Spark's scheduling, serialization and collect.
 */
@JsonPropertyOrder(alphabetic = false)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record IterationRecord(
    @JsonProperty("run") String run,
    @JsonProperty("mode") String mode,
    @JsonProperty("workers") int workers,
    @JsonProperty("iteration") long iteration,
    @JsonProperty("epoch") int epoch,
    @JsonProperty("loss") double loss,
    @JsonProperty("lr") double lr,
    @JsonProperty("up_bytes") long upBytes,
    @JsonProperty("down_bytes") long downBytes,
    @JsonProperty("up_nnz") long upNnz,
    @JsonProperty("down_nnz") long downNnz,
    @JsonProperty("agg_nnz") long aggNnz,
    @JsonProperty("up_target_k") int upTargetK,
    @JsonProperty("up_achieved_k") double upAchievedK,
    @JsonProperty("down_target_k") int downTargetK,
    @JsonProperty("down_achieved_k") int downAchievedK,
    @JsonProperty("delta_up") double deltaUp,
    @JsonProperty("delta_down") double deltaDown,
    @JsonProperty("xi") Double xi,
    @JsonProperty("optimality_gap") Double optimalityGap,
    @JsonProperty("lost_residuals") int lostResiduals,
    @JsonProperty("replica_resyncs") int replicaResyncs,
    @JsonProperty("time_gradient_ms") double timeGradientMs,
    @JsonProperty("time_compress_ms") double timeCompressMs,
    @JsonProperty("time_catchup_ms") double timeCatchupMs,
    @JsonProperty("time_job_ms") double timeJobMs,
    @JsonProperty("time_task_path_ms") double timeTaskPathMs,
    @JsonProperty("time_aggregate_ms") double timeAggregateMs,
    @JsonProperty("time_broadcast_ms") double timeBroadcastMs,
    @JsonProperty("time_total_ms") double timeTotalMs) {}
