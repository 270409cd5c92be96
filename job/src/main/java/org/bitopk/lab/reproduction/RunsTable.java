package org.bitopk.lab.reproduction;

import java.util.List;

/**
 * Any grid: every run's settings that vary across the grid and its figures. Used for grids whose name is not a
 * known claim ("Other experiments"), which are reported rather than refused: they are finished, checked runs,
 * only without a published figure to set them against.
 */
final class RunsTable {
  private RunsTable() {}

  static String markdown(ExperimentEvidence e) {
    List<String> keys = e.grid().varyingKeys();
    StringBuilder b = new StringBuilder("| run |");
    for (String k : keys) {
      b.append(' ').append(k).append(" |");
    }
    b.append(" final accuracy (%) | best (%) | rounds | wall s | up MiB | down MiB delivered |\n|---|")
        .append("---|".repeat(keys.size() + 6)).append('\n');
    for (RunFigures r : e.runs()) {
      b.append("| ").append(r.point().name()).append(" |");
      for (String k : keys) {
        b.append(' ').append(r.setting(k, Numbers.NONE)).append(" |");
      }
      b.append(' ').append(Numbers.percent(r.finalAccuracy())).append(" | ").append(Numbers.percent(r.bestAccuracy()))
          .append(" | ").append(r.rounds()).append(" | ").append(Numbers.fixed(r.wallSeconds(), 1)).append(" | ")
          .append(Numbers.mib(r.upBytes())).append(" | ").append(Numbers.mib(r.downBytesDelivered())).append(" |\n");
    }
    return b.append('\n').toString();
  }
}
