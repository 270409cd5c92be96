package org.bitopk.lab.network;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.apache.spark.SparkConf;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;

/**
 * Where a Spark job's time goes, from Spark's own task metrics: for every job its wall time on the driver, and
 * for every task Spark's scheduler delay (from the launch on the driver to the result back there, less what the
 * executor spent on the task), the deserialization (which includes fetching the stage's task binary broadcast),
 * the run (the job's own work), the result's serialization and the result's size. At the application's end the
 * medians over the jobs and tasks go to the JSON file named by {@value #FILE_KEY}, with how the tasks fell on the
 * executors: per executor its tasks, and per job the tasks of each executor that ran any (an executor idle in a
 * job while another ran two shows as {@code "2,1,1"} for 4 tasks on 4 executors).
 *
 * <p>Registered through {@code spark.extraListeners}: the network lab sets it for its driver, and a local run
 * takes it as {@code -Dspark.extraListeners=org.bitopk.lab.network.SparkTaskTimings -Dspark.bitopk.lab.timings=FILE}.
 */
public final class SparkTaskTimings extends SparkListener {
  public static final String FILE_KEY = "spark.bitopk.lab.timings";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final Map<Integer, Long> jobStarts = new HashMap<>();
  private final List<Long> jobMillis = new ArrayList<>();
  private final List<Task> tasks = new ArrayList<>();
  private final Map<Integer, Integer> jobOfStage = new HashMap<>();
  /** Per job, per executor id, its successful tasks. */
  private final Map<Integer, Map<String, Integer>> jobExecutorTasks = new TreeMap<>();

  /** One finished task's times (ms) and result size (bytes). */
  record Task(long schedulerDelay, long deserialize, double deserializeCpu, long run, double runCpu,
      long resultSerialization, long gettingResult, long resultBytes) {
    static Task of(TaskInfo info, TaskMetrics m) {
      long gettingResult = info.gettingResult() ? info.finishTime() - info.gettingResultTime() : 0;
      long delay = Math.max(0, info.duration() - m.executorRunTime() - m.executorDeserializeTime()
          - m.resultSerializationTime() - gettingResult);
      return new Task(delay, m.executorDeserializeTime(), m.executorDeserializeCpuTime() / 1e6, m.executorRunTime(),
          m.executorCpuTime() / 1e6, m.resultSerializationTime(), gettingResult, m.resultSize());
    }
  }

  public SparkTaskTimings(SparkConf conf) {
    if (!conf.contains(FILE_KEY)) {
      throw new IllegalArgumentException(SparkTaskTimings.class.getName() + " needs " + FILE_KEY
          + " (the JSON file it writes)");
    }
    this.file = Path.of(conf.get(FILE_KEY));
  }

  @Override
  public synchronized void onJobStart(SparkListenerJobStart start) {
    jobStarts.put(start.jobId(), start.time());
    for (Object stage : scala.collection.JavaConverters.seqAsJavaList(start.stageIds())) {
      jobOfStage.put((Integer) stage, start.jobId());
    }
  }

  @Override
  public synchronized void onJobEnd(SparkListenerJobEnd end) {
    Long started = jobStarts.remove(end.jobId());
    if (started != null) {
      jobMillis.add(end.time() - started);
    }
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskInfo() != null && end.taskMetrics() != null && end.taskInfo().successful()) {
      tasks.add(Task.of(end.taskInfo(), end.taskMetrics()));
      Integer job = jobOfStage.get(end.stageId());
      if (job != null) {
        jobExecutorTasks.computeIfAbsent(job, j -> new TreeMap<>()).merge(end.taskInfo().executorId(), 1, Integer::sum);
      }
    }
  }

  @Override
  public synchronized void onApplicationEnd(SparkListenerApplicationEnd end) {
    try {
      JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), summary());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  synchronized ObjectNode summary() {
    ObjectNode root = JSON.createObjectNode();
    root.put("note", "medians over every job and every successful task of the application; milliseconds "
        + "(cpu: of the executor's thread), bytes");
    root.put("jobs", jobMillis.size());
    root.put("job_ms", median(jobMillis, Long::doubleValue));
    root.put("tasks", tasks.size());
    root.put("scheduler_delay_ms", median(tasks, t -> t.schedulerDelay));
    root.put("deserialize_ms", median(tasks, t -> t.deserialize));
    root.put("deserialize_cpu_ms", median(tasks, t -> t.deserializeCpu));
    root.put("run_ms", median(tasks, t -> t.run));
    root.put("run_cpu_ms", median(tasks, t -> t.runCpu));
    root.put("result_serialization_ms", median(tasks, t -> t.resultSerialization));
    root.put("getting_result_ms", median(tasks, t -> t.gettingResult));
    root.put("result_bytes", median(tasks, t -> t.resultBytes));
    Map<String, Integer> byExecutor = new TreeMap<>();
    Map<String, Integer> jobsByPattern = new TreeMap<>();
    for (Map<String, Integer> job : jobExecutorTasks.values()) {
      job.forEach((executor, n) -> byExecutor.merge(executor, n, Integer::sum));
      jobsByPattern.merge(job.values().stream().sorted(Comparator.reverseOrder()).map(String::valueOf)
          .collect(Collectors.joining(",")), 1, Integer::sum);
    }
    ObjectNode perExecutor = root.putObject("tasks_by_executor");
    byExecutor.forEach(perExecutor::put);
    ObjectNode perJob = root.putObject("jobs_by_tasks_per_executor");
    jobsByPattern.forEach(perJob::put);
    return root;
  }

  static <T> double median(List<T> values, ToDoubleFunction<T> of) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = values.stream().mapToDouble(of).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
