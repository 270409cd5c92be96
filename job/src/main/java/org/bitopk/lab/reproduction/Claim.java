package org.bitopk.lab.reproduction;

import java.util.List;
import java.util.Optional;

/**
 * The published claims REPRODUCTION.md checks, in the order it lists them: what the paper says, which grid
 * (by its {@code name}) or measuring command produces our figure, and the flag that hands that output to the
 * {@code reproduction} command. A grid whose name is none of these goes under "Other experiments".
 */
enum Claim {
  THESIS_MLP("Equal accuracy, Fashion-MNIST MLP: unidirectional vs bidirectional vs dense",
      "Zou's thesis: with ρ_up = ρ_down = 0.001, bidirectional TopK reaches the accuracy of unidirectional TopK "
          + "and of dense SGD at P = 20, 50 and 100 (final test accuracy after 100 epochs, learning rates tuned "
          + "per method).",
      List.of("thesis-fmnist-mlp", "thesis-fmnist-mlp-quick")),
  THESIS_CNN("Equal accuracy, Fashion-MNIST CNN: unidirectional vs bidirectional vs dense",
      "Zou's thesis: the same claim for the Fashion-MNIST CNN (29,034 parameters).",
      List.of("thesis-fmnist-cnn", "thesis-fmnist-cnn-quick")),
  DOWNLINK_RATIO("Downlink saving: nnz(p) / nnz(a) by P",
      "Zou's thesis: the server's TopK keeps a share of the aggregate's non-zeros that falls like 1/P, because "
          + "the workers' supports barely overlap (FMNIST MLP: 0.051 / 0.022 / 0.012 at P = 20 / 50 / 100).",
      List.of("downlink-ratio")),
  COMPRESSORS("Uplink compressors in bidirectional training",
      "SIDCo (Abdelmoniem et al., MLSys 2021): its thresholds select about the target k (estimation quality "
          + "similar to DGC) at a lower compression overhead than exact TopK; Gaussian-k (Shi et al.) claims the "
          + "normal percentile is a good cheap threshold. Accuracy should stay near TopK's at the same density.",
      List.of("compressors")),
  COUNTEREXAMPLE("Counterexample: bidirectional can beat unidirectional",
      "Zou's thesis: on three quadratics (d = 100, P = 3, K = 1 up and down, lr 0.01, 1000 iterations of full "
          + "gradients) the bidirectional scheme ends closer to the optimum than the unidirectional one: mean "
          + "F − F* over iterations 500–999 about 22.4 unidirectional vs 14.3 bidirectional ("
          + Published.GAP_SEED_RANGE + "); downlink-only compression converges to about 0.",
      List.of("counterexample")),
  COMPRESSOR_EVALUATION("Compressors on real gradients",
      "SIDCo (Abdelmoniem et al., MLSys 2021): threshold estimation quality similar to DGC, with lower "
          + "compression overhead than exact TopK (headline: training up to 7.6× faster than TopK, 1.9× than DGC).",
      List.of()),
  TIME_TO_ACCURACY("Time to accuracy against DL4J",
      "This project's goals on the Fashion-MNIST MLP: reach the target accuracy in at most 0.1× the time of "
          + "DL4J's best distributed training master, with at least 50× fewer bytes, and within 1.5× of a "
          + "single-JVM DL4J fit.",
      List.of()),
  LAB_TIME_TO_ACCURACY("Time to accuracy on shaped links",
      "BytePS (docs/gradient-compression.md): TopK trains ResNet-18/CIFAR-100 about 6× faster than its uncompressed "
          + "baseline on links capped at 100 Mbit/s (83.9 s vs 518 s). This project's targets on the network lab "
          + "(Fashion-MNIST MLP, P = 8, links of 100 Mbit/s): bidirectional TopK reaches 85 % in at most 1/6 of "
          + "bitopk dense's time and at most 0.1× the best DL4J master's, and at least 1.3× faster than "
          + "unidirectional TopK.",
      List.of()),
  LAB_DDP_TIME_TO_ACCURACY("Time to accuracy against PyTorch DDP",
      "This project's targets against PyTorch DistributedDataParallel as a Spark user runs it (Spark's "
          + "TorchDistributor: one gloo rank per task; DDP's fp32 all-reduce, its fp16 hook, PowerSGD at rank 1 and 4) "
          + "on the network lab (Fashion-MNIST MLP, P = 8 on 4 worker hosts): bidirectional TopK reaches 85 % in at "
          + "most 0.5× the best DDP system's time on links of 100 Mbit/s and at most 1.0× on links of 1 Gbit/s.",
      List.of()),
  SCHEMES("Other bidirectional schemes side by side",
      "Each scheme's authors: EF21 (Richtárik, Sokolov, Fatkhullin, NeurIPS 2021) replaces error feedback by "
          + "gradient estimates and needs no bounded-gradient assumption; EF21-P / EF21-BC (Gruntkowska, Tyurin, "
          + "Richtárik, ICML 2023) compresses the model on the downlink; MCM (Philippenko & Dieuleveut, NeurIPS 2021) "
          + "keeps the central model uncompressed and claims the convergence of unidirectional compression with "
          + "both directions compressed. No paper reports these on the thesis' setting; the question is Zou's: does "
          + "compressing the downlink cost accuracy, and which memory mechanism costs least.",
      List.of("schemes-fmnist-mlp")),
  WIRE_FORMATS("Value formats under error feedback: accuracy and bytes",
      "This project's target, no paper's figure: with the values of both directions' messages rounded to fp16 or "
          + "bf16 instead of fp32, the rounding error kept in the worker's and the server's residuals, bidirectional "
          + "TopK ends within " + WireFormatTable.TOLERANCE_POINTS + " points of fp32's final accuracy (Fashion-MNIST "
          + "MLP, P = 20, ρ = 0.001 both ways, batch 10, 10 epochs); int8's (one scale per message) is stated. The "
          + "bytes per coordinate they buy are measured on the same runs.",
      List.of("wire-formats"));

  /** The command that writes a --lab-time-to-accuracy directory (submit/README.md has the full one). */
  static final String LAB_TIME_TO_ACCURACY_COMMAND = "sudo submit/netlab.sh --hosts 4 --cores 2 -- time-to-accuracy "
      + "--workers 8 --rates 100mbit,1gbit,none --lr-choice LR_CHOICE --out runs/lab-tta/tta";

  /** The command that writes a --ddp-time-to-accuracy directory (submit/README.md has the full one). */
  static final String LAB_DDP_TIME_TO_ACCURACY_COMMAND = "sudo submit/netlab.sh --hosts 4 --cores 2 -- "
      + "time-to-accuracy --workers 8 --systems bitopk-bidirectional,ddp-dense,ddp-fp16,ddp-powersgd-1,ddp-powersgd-4 "
      + "--rates 100mbit,1gbit --lr-choice LR_CHOICE --out runs/lab-ddp/tta";

  /** Where the shipped grid files are, relative to the repository's top level. */
  static final String SHIPPED_GRIDS = "job/experiments";
  /** The command that writes a --evaluation directory. */
  static final String EVALUATION_COMMAND =
      "submit/run-local.sh evaluate-compressors --captures RUN_DIR --out runs/evaluation";
  /** The command that writes a --time-to-accuracy directory. */
  static final String TIME_TO_ACCURACY_COMMAND = "submit/run-local.sh time-to-accuracy --out runs/time-to-accuracy";

  private final String title;
  private final String paper;
  private final List<String> grids;

  Claim(String title, String paper, List<String> grids) {
    this.title = title;
    this.paper = paper;
    this.grids = grids;
  }

  /** The claim a grid of this name checks, if any. */
  static Optional<Claim> ofGrid(String gridName) {
    for (Claim c : values()) {
      if (c.grids.contains(gridName)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** The shipped grid file a grid of this name comes from. */
  static String shippedGridPath(String gridName) {
    return SHIPPED_GRIDS + "/" + gridName + ".json";
  }

  String title() {
    return title;
  }

  /** What the paper says, one paragraph. */
  String paper() {
    return paper;
  }

  /** The grid names that produce this claim's figure, the full one first; empty for measuring commands. */
  List<String> grids() {
    return grids;
  }
}
