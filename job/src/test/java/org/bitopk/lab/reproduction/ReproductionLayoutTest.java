package org.bitopk.lab.reproduction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.commonmark.ext.heading.anchor.IdGenerator;
import org.junit.jupiter.api.Test;

/**
 * A section's parts in reading order (tables first, provenance after, command, machine and charts last) and the
 * summary rows read back from the sections' tables, on sections written as the generator writes them.
 */
class ReproductionLayoutTest {
  private static final String HEADING = "## Equal accuracy, Fashion-MNIST MLP: unidirectional vs bidirectional vs "
      + "dense (grid `thesis-fmnist-mlp-quick`)\n\n";
  private static final String PAPER = "**Paper.** Zou's thesis: the modes reach the same accuracy.";
  private static final String OURS = "**Ours.** 3 runs in `runs/x`: ran 2026-11-25 01:37-02:26 UTC at load 1.6-3.2, "
      + "restarted once.";
  private static final String NOTE = "**Note:** the paper's figures are after 100 epochs, ours after 10.";
  private static final String TABLES = "Final test accuracy (%), last epoch.\n\n"
      + "| P | mode | lr (paper / ours) | paper, 100 epochs | ours, 10 epochs | difference (points) |\n"
      + "|---|---|---|---|---|---|\n"
      + "| 20 | unidirectional | 0.08 / 0.08 | 88.98 | 88.20 | −0.78 |\n"
      + "| 50 | unidirectional | 0.13 / 0.13 | 88.76 | 87.54 | −1.22 |\n\n"
      + "Spread between the modes at each P (highest minus lowest final accuracy, points).\n\n"
      + "| P | modes | paper | ours |\n|---|---|---|---|\n"
      + "| 20 | unidirectional, bidirectional, dense | 0.85 | 0.28 |\n"
      + "| 50 | unidirectional, bidirectional, dense | 1.00 | 1.53 |";
  private static final String TAIL = "**Command.**\n\n```bash\nsubmit/run-local.sh experiment --grid g.json --out "
      + "runs/x\n\n# a blank line inside a command block stays there\n```\n\nThe grid as run is the shipped one.\n\n"
      + "**Machine and load** (environment.json):\n\n- `experiment`, 2026-11-23: vm, 2 cores\n\n"
      + "**Charts**:\n\n![x: a.png](job/experiments/figures/x-a.png)\n\n";

  @Test
  void tablesComeFirstThenWhatThePaperSaysAndWhereOursCameFromThenTheCommand() {
    String older = HEADING + PAPER + "\n\n" + OURS + "\n\n" + NOTE + "\n\n" + TABLES + "\n\n" + TAIL;
    String laidOut = SectionLayout.laidOut(older);
    assertEquals(HEADING + TABLES + "\n\n" + NOTE + "\n\n" + PAPER + "\n\n" + OURS + "\n\n" + TAIL, laidOut);
    assertEquals(laidOut, SectionLayout.laidOut(laidOut), "laying out a laid-out section changes nothing");
    List<String> before = new ArrayList<>(Arrays.asList(older.split("\n")));
    List<String> after = new ArrayList<>(Arrays.asList(laidOut.split("\n")));
    before.sort(null);
    after.sort(null);
    assertEquals(before, after, "no line lost or added");
  }

  /** Rows kept by an earlier refresh: their note and its quotation go with the provenance, after the tables. */
  @Test
  void theKeptRowsNoteAndItsQuotationFollowTheRunsTheyDescribe() {
    String kept = "**Rows from two sources.** Regenerated from the runs in `runs/y`: P = 20 dense. That version said:"
        + "\n\n> **Ours.** 7 runs in `runs/z`\n>\n> Its command: `submit/run-local.sh experiment`";
    String older = HEADING + PAPER + "\n\n" + OURS + "\n\n" + kept + "\n\n" + TABLES + "\n\n" + TAIL;
    assertEquals(HEADING + TABLES + "\n\n" + PAPER + "\n\n" + OURS + "\n\n" + kept + "\n\n" + TAIL,
        SectionLayout.laidOut(older));
  }

  @Test
  void theSummaryReadsEachSectionsTablesAndLinksItsHeading() {
    Map<String, String> sections = new LinkedHashMap<>();
    sections.put(HEADING.strip(), HEADING + TABLES + "\n\n" + TAIL);
    String goals = "## Time to accuracy against DL4J\n\n| goal | ours | reference | ratio | met |\n|---|---|---|---|---|\n"
        + "| time ≤ 0.1× DL4J's best distributed master | 10.1 s (a) | 41.0 s (b) | 0.247× | no |\n"
        + "| time within 1.5× of a single-JVM fit | 10.1 s (a) | 4.5 s (c) | 2.262× | no |\n\n";
    sections.put("## Time to accuracy against DL4J", goals);
    sections.put("## Compressors on real gradients", "## Compressors on real gradients\n\nNo table here.\n\n");
    List<String> rows = SummaryTable.markdown(sections).lines().filter(l -> l.startsWith("| [")).toList();
    String anchor = IdGenerator.builder().build().generateId("Equal accuracy, Fashion-MNIST MLP: unidirectional vs "
        + "bidirectional vs dense (grid thesis-fmnist-mlp-quick)");
    assertEquals("| [Equal accuracy, Fashion-MNIST MLP, `thesis-fmnist-mlp-quick`](#" + anchor + ") | spread between "
        + "the modes 0.28 / 1.53 points at P = 20 / 50, 10 epochs | 0.85 / 1.00, 100 epochs | spread above the "
        + "paper's at P = 50; 10 epochs against the paper's 100 epochs |", rows.get(0));
    assertEquals("| [Time to accuracy against DL4J](#time-to-accuracy-against-dl4j): time within 1.5× of a single-JVM "
        + "fit | 10.1 s (a) | 4.5 s (c) | met: no (2.262×) |", rows.get(2), "one row per goal");
    assertEquals("| [Compressors on real gradients](#compressors-on-real-gradients) | see the section | – | see the "
        + "section |", rows.get(3), "a section without its table still has its line");
    assertEquals(4, rows.size());
  }

  @Test
  void anchorsAreGitHubsHeadingIds() {
    IdGenerator ids = IdGenerator.builder().build();
    for (String heading : List.of("Downlink saving: nnz(p) / nnz(a) by P (grid `downlink-ratio`)",
        "Value formats under error feedback: accuracy and bytes (grid `wire-formats`)", "Not reproduced here",
        "Counterexample: bidirectional can beat unidirectional (grid `counterexample`)",
        "Time to accuracy on shaped links", "Compressors on real gradients")) {
      assertEquals(ids.generateId(heading.replace("`", "")), SummaryTable.anchor(heading), heading);
    }
    assertTrue(SummaryTable.anchor("A: b (grid `c`)").equals("a-b-grid-c"));
  }
}
