package org.bitopk.job.reproduction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The goals' verdicts against hand-worked cases: a master that never reached the target counts with its wall time
 * as a lower bound, so a goal that holds against the bound is met and one that fails only against it is not
 * determined; a run of ours that never reached the target meets nothing.
 */
class TimeToAccuracySectionTest {
  static final String HEADER = String.join(",", TimeToAccuracySection.COLUMNS);

  @ParameterizedTest(name = "ours {0} s, master {1} s (wall {2} s), single {3} s -> {4} / {5}")
  @CsvSource(delimiter = ';', value = {
      // ours; master to target; master wall; single to target; time goal; single goal
      "20; 220; 300; 15; yes; yes",      // 20/220 = 0.091 <= 0.1; 20/15 = 1.33 <= 1.5
      "30; 220; 300; 15; no; no",        // 30/220 = 0.136; 30/15 = 2
      "20; ; 300; 15; yes; yes",         // never reached: > 300 s, and 20/300 <= 0.1 holds against the bound
      "40; ; 300; 15; not determined (the reference did not reach the target); no",   // 40/300 = 0.133, true time unknown
      "; 220; 300; 15; no; no",          // ours never reached the target
      "20; 220; 300; ; yes; not determined"})   // the single JVM never reached it: no reference
  void verdicts(String ours, String master, String wall, String single, String timeGoal, String singleGoal) {
    String csv = HEADER + "\n"
        + "bitopk bidirectional,x,0.85," + blank(ours) + ",1000,0.86,0.86,10,50,2000\n"
        + "dl4j SharedTrainingMaster,y,0.85," + blank(master) + ",,0.84,0.80,10," + wall + ",99999999\n"
        + "dl4j single-JVM fit,z,0.85," + blank(single) + ",,0.86,0.86,10,20,\n";
    String md = TimeToAccuracySection.markdown(output(csv));
    assertEquals(timeGoal, verdict(md, "| time ≤ 0.1×"), md);
    assertEquals(singleGoal, verdict(md, "| time within 1.5×"), md);
  }

  static String blank(String s) {
    return s == null ? "" : s;
  }

  static String verdict(String md, String prefix) {
    String row = md.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
    String[] cells = row.split(" \\| ");
    return cells[cells.length - 1].replaceAll(" \\|$", "");
  }

  static MeasuredOutput output(String csv) {
    return MeasuredOutput.of("dir", CsvTable.parse("time-to-accuracy.csv", csv)
        .requireHeader(TimeToAccuracySection.COLUMNS), List.of(), null);
  }
}
