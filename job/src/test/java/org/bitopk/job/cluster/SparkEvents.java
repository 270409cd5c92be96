package org.bitopk.job.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link TaskPlacementListener} saw of a run's Spark jobs, tasks and executors: the driver's scheduler's own
 * account, independent of the run's metrics.
 */
final class SparkEvents {
  /** A job: the round it belongs to ({@code bitopk.round}, -1 for none), its submission time and stages. */
  private record Job(int round, long submitted, List<String> stages) {}

  private final List<Job> jobs = new ArrayList<>();
  private final Map<String, Long> executorsAdded = new HashMap<>();
  /** Per stage, the executors its tasks ran on. */
  private final Map<String, List<String>> taskExecutors = new HashMap<>();

  private SparkEvents() {}

  static SparkEvents read(Path file) throws IOException {
    SparkEvents events = new SparkEvents();
    for (String line : Files.readAllLines(file)) {
      String[] f = line.split(" ");
      switch (f[0]) {
        case "job" -> events.jobs.add(new Job(f[1].equals("-") ? -1 : Integer.parseInt(f[1]), Long.parseLong(f[2]),
            f.length > 3 ? List.of(f[3].split(",")) : List.of()));
        case "executor" -> events.executorsAdded.put(f[1], Long.parseLong(f[2]));
        case "task" -> events.taskExecutors.computeIfAbsent(f[1], s -> new ArrayList<>()).add(f[2]);
        case "stage", "block" -> { }
        default -> throw new AssertionError("unknown line: " + line);
      }
    }
    return events;
  }

  /** The jobs submitted with round t's property. */
  long jobsOfRound(int t) {
    return jobs.stream().filter(j -> j.round() == t).count();
  }

  /** When the first round's job was submitted. */
  long firstJobTime() {
    return jobs.stream().filter(j -> j.round() >= 0).mapToLong(Job::submitted).min().orElseThrow();
  }

  /** The executors registered at or after {@code time}. */
  List<String> executorsAddedAfter(long time) {
    return executorsAdded.entrySet().stream().filter(e -> e.getValue() >= time).map(Map.Entry::getKey).sorted()
        .toList();
  }

  long executorAddedTime(String executor) {
    return executorsAdded.get(executor);
  }

  /** The first round whose job was submitted at or after {@code time}. */
  int firstRoundSubmittedAfter(long time) {
    return jobs.stream().filter(j -> j.round() >= 0 && j.submitted() >= time).mapToInt(Job::round).min()
        .orElseThrow();
  }

  /** The first round a task of whose job ran on {@code executor}. */
  int firstRoundWithTaskOn(String executor) {
    return jobs.stream().filter(j -> j.round() >= 0 && j.stages().stream()
        .anyMatch(s -> taskExecutors.getOrDefault(s, List.of()).contains(executor))).mapToInt(Job::round).min()
        .orElseThrow(() -> new AssertionError("no round's task ran on executor " + executor));
  }
}
