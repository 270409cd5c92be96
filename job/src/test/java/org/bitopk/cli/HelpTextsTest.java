package org.bitopk.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.problem.network.DatasetChoice;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.ModelChoice;
import org.junit.jupiter.api.Test;

/** Data sets, models and compressors are listed once, in their registries; --help and validation follow them. */
class HelpTextsTest {

  private static String trainHelp() {
    StringWriter out = new StringWriter();
    int code = Main.execute(new String[] {"train", "--help"}, null, new PrintWriter(out, true),
        new PrintWriter(new StringWriter(), true));
    assertEquals(0, code);
    return out.toString().replaceAll("\\s+", " ");
  }

  @Test
  void helpListsEveryRegisteredChoice() {
    String help = trainHelp();
    for (DatasetChoice d : DatasetChoice.values()) {
      assertTrue(help.contains(d.cliName() + " ("), "--help lacks dataset " + d.cliName());
    }
    for (ModelArchitecture m : ModelArchitecture.values()) {
      assertTrue(help.contains(m.cliName()), "--help lacks model " + m.cliName());
    }
    for (String compressor : new String[] {"topk", "gaussiank", "sidco-e", "sidco-gp", "sidco-gamma-gp", "dgc",
        "randomk", "threshold:tau", "none", "randomk:scaled", "natural"}) {
      assertTrue(help.contains(compressor), "--help lacks compressor " + compressor);
    }
    assertTrue(!help.contains("${bundle:"), "unresolved help variable: " + help);
  }

  @Test
  void theRegistryDecidesNamesDefaultsAndAugmentation() {
    assertEquals(DatasetChoice.SYNTHETIC, DatasetChoice.parse("synthetic:n=100,shape=1x8x8"));
    assertEquals(DatasetChoice.COUNTEREXAMPLE, DatasetChoice.parse("counterexample:d=4,centres=1;2"));
    assertEquals(DatasetChoice.SYNTHETIC_GRADIENTS, DatasetChoice.parse("synthetic-gradients:d=40,overlap=0.5"));
    assertEquals(ModelArchitecture.MLP_SMALL, ModelChoice.defaultFor("mnist"));
    assertEquals(ModelArchitecture.MLP, ModelChoice.defaultFor("fashion-mnist"));
    assertEquals(ModelArchitecture.VGG19_BN, ModelChoice.defaultFor("cifar10"));
    for (DatasetChoice d : DatasetChoice.values()) {
      assertEquals(d == DatasetChoice.CIFAR10, d.augments(), d.cliName());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TrainingConfig.builder().dataset("imagenet"));
    assertEquals("--dataset: unknown dataset 'imagenet': expected fashion-mnist, mnist, cifar10, "
        + "synthetic[:options], counterexample[:options] or synthetic-gradients[:options]", e.getMessage());
  }
}
