package org.bitopk.job.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockUpdated;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.storage.BlockUpdatedInfo;
import org.apache.spark.storage.RDDBlockId;

/**
 * A driver-side listener for cluster tests ({@code spark.extraListeners}): appends to the file named by
 * {@code spark.bitopk.test.placement} one line per finished task ({@code task STAGE EXECUTOR}), per completed
 * stage ({@code stage STAGE TASKS}), per RDD block stored in memory ({@code block RDD SPLIT EXECUTOR}), per job
 * ({@code job ROUND SUBMITTED STAGE,STAGE...}, ROUND the job's {@code bitopk.round} property or {@code -}) and per
 * executor registered ({@code executor ID TIME}); times are the driver's wall-clock milliseconds.
 */
public final class TaskPlacementListener extends SparkListener {
  static final String FILE = "spark.bitopk.test.placement";
  private final Path file;

  public TaskPlacementListener(SparkConf conf) {
    this.file = Path.of(conf.get(FILE));
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    append("task " + end.stageId() + " " + end.taskInfo().executorId());
  }

  @Override
  public void onJobStart(SparkListenerJobStart job) {
    String round = job.properties() == null ? null : job.properties().getProperty("bitopk.round");
    StringBuilder stages = new StringBuilder();
    for (Object stage : scala.collection.JavaConverters.seqAsJavaList(job.stageIds())) {
      stages.append(stages.length() == 0 ? "" : ",").append(stage);
    }
    append("job " + (round == null ? "-" : round) + " " + job.time() + " " + stages);
  }

  @Override
  public void onExecutorAdded(SparkListenerExecutorAdded added) {
    append("executor " + added.executorId() + " " + added.time());
  }

  @Override
  public void onStageCompleted(SparkListenerStageCompleted stage) {
    append("stage " + stage.stageInfo().stageId() + " " + stage.stageInfo().numTasks());
  }

  @Override
  public void onBlockUpdated(SparkListenerBlockUpdated update) {
    BlockUpdatedInfo info = update.blockUpdatedInfo();
    if (info.blockId() instanceof RDDBlockId block && info.storageLevel().useMemory()) {
      append("block " + block.rddId() + " " + block.splitIndex() + " " + info.blockManagerId().executorId());
    }
  }

  private synchronized void append(String line) {
    try {
      Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
