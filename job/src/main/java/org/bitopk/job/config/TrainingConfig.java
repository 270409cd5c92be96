package org.bitopk.job.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.compression.KRounding;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.ModelSpec;
import org.bitopk.job.problem.quadratic.CounterexampleSetting;

/**
 * Every setting of a training run, validated and with defaults resolved. Keys of {@link #toFlags()} are the
 * command-line flag names, so a run's {@code config.json} can be passed back with {@code --config}.
 */
public final class TrainingConfig {
  public static final String COUNTEREXAMPLE = "counterexample";

  private final String master;
  private final String dataset;
  private final String data;
  private final ModelSpec model;
  private final Mode mode;
  private final int workers;
  private final int tasks;
  private final CompressorSpec uplink;
  private final CompressorSpec downlink;
  private final double densityUp;
  private final double densityDown;
  private final Integer kUp;
  private final Integer kDown;
  private final KRounding kRounding;
  private final double learningRate;
  private final double lrDecay;
  private final double momentum;
  private final int batchSize;
  private final int epochs;
  private final long maxIterations;
  private final boolean nonIid;
  private final long seed;
  private final String output;
  private final boolean overwrite;
  private final int evalEvery;
  private final int consistencyCheckEvery;
  private final int snapshotEvery;
  private final int updateWindow;
  private final boolean xi;
  /** 1-based rounds whose compensated vectors c_i are written, ascending; empty for none. */
  private final java.util.List<Integer> captureVectors;
  private final org.bitopk.job.engine.UplinkFeedback uplinkFeedback;
  private final DownlinkScheme downlinkScheme;
  private final Double upMemoryRate;
  private final Double downMemoryRate;
  private final boolean quiet;
  private final int checkpointEvery;
  private final boolean resume;
  private final TableInput table;
  private final String x0;
  private final CounterexampleSetting counterexample;

  private TrainingConfig(Builder b) {
    this.master = b.master;
    this.dataset = b.dataset;
    this.data = b.data;
    this.model = b.model != null ? b.model : ModelArchitecture.defaultFor(b.dataset);
    this.mode = b.mode;
    this.counterexample = CounterexampleSetting.names(b.dataset) ? CounterexampleSetting.parse(b.dataset) : null;
    this.workers = b.workers != null ? b.workers : (counterexample != null ? counterexample.workers() : 4);
    this.tasks = b.tasks;
    if (tasks > workers) {
      throw new IllegalArgumentException("--tasks: expected at most --workers (" + workers + ") tasks, got " + tasks);
    }
    this.uplink = b.mode == Mode.DENSE ? CompressorSpec.parse("none") : b.uplink;
    this.downlink = b.mode == Mode.BIDIRECTIONAL ? b.downlink : CompressorSpec.parse("none");
    this.densityUp = b.mode == Mode.DENSE ? 1.0 : b.densityUp;
    this.densityDown = b.mode == Mode.BIDIRECTIONAL ? b.densityDown : 1.0;
    this.kUp = b.mode == Mode.DENSE ? null : b.kUp;
    this.kDown = b.mode == Mode.BIDIRECTIONAL ? b.kDown : null;
    this.x0 = b.x0;
    this.kRounding = b.kRounding;
    this.learningRate = b.learningRate != null ? b.learningRate : defaultLearningRate(b.dataset);
    this.lrDecay = b.lrDecay;
    this.momentum = b.momentum;
    this.batchSize = b.batchSize;
    this.epochs = b.epochs;
    this.maxIterations = b.maxIterations;
    this.nonIid = b.nonIid;
    this.seed = b.seed;
    this.output = b.output;
    this.overwrite = b.overwrite;
    this.evalEvery = b.evalEvery;
    this.consistencyCheckEvery = b.consistencyCheckEvery;
    this.snapshotEvery = b.snapshotEvery;
    this.updateWindow = b.updateWindow;
    this.xi = b.xi;
    this.captureVectors = b.captureVectors;
    this.uplinkFeedback = b.uplinkFeedback;
    this.downlinkScheme = b.downlinkScheme != null ? b.downlinkScheme : DownlinkScheme.defaultFor(b.mode);
    this.upMemoryRate = b.upMemoryRate;
    this.downMemoryRate = b.downMemoryRate;
    refuseSchemesThatDoNotApply();
    this.quiet = b.quiet;
    this.checkpointEvery = b.checkpointEvery;
    this.resume = b.resume;
    this.table = b.table;
    if (table != null && data != null) {
      throw new IllegalArgumentException("--data: table input takes its path from --data-format/--table, not as "
          + "a data set directory");
    }
    if (resume && output == null) {
      throw new IllegalArgumentException("--resume: needs the run directory to continue");
    }
    if (counterexample != null && workers != counterexample.workers()) {
      throw new IllegalArgumentException("--workers " + workers + ": the counterexample has one worker per centre, "
          + "and --dataset " + dataset + " has " + counterexample.workers() + " centres; leave --workers out or "
          + "give " + counterexample.workers());
    }
    if (x0 != null && counterexample == null) {
      throw new IllegalArgumentException("--x0 " + x0 + ": only for --dataset counterexample[:options]");
    }
    if (counterexample != null) {
      int d = counterexample.dimension();
      if (kUp != null && kUp > d) {
        throw new IllegalArgumentException("--k-up " + kUp + ": exceeds the dimension d = " + d + " of --dataset "
            + dataset);
      }
      if (kDown != null && kDown > d) {
        throw new IllegalArgumentException("--k-down " + kDown + ": exceeds the dimension d = " + d + " of --dataset "
            + dataset);
      }
    }
    if (snapshotEvery > updateWindow) {
      throw new IllegalArgumentException("--snapshot-every (" + snapshotEvery + ") must not exceed --update-window ("
          + updateWindow + "): a replica restored from the snapshot catches up through the window");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Combinations a scheme does not define: one line naming the flag. */
  private void refuseSchemesThatDoNotApply() {
    if (mode == Mode.DENSE && uplinkFeedback != org.bitopk.job.engine.UplinkFeedback.EF14) {
      throw new IllegalArgumentException("--uplink-feedback: " + uplinkFeedback.cliName() + " does not apply to "
          + "--mode dense, which sends every gradient entry uncompressed");
    }
    boolean estimate = uplinkFeedback.keepsGradientEstimate();
    String name = uplinkFeedback == org.bitopk.job.engine.UplinkFeedback.EF21 ? "EF21" : "Artemis";
    if (estimate && momentum != 0) {
      throw new IllegalArgumentException("--momentum: " + name + " (--uplink-feedback " + uplinkFeedback.cliName()
          + ") keeps a gradient estimate, not a momentum; expected 0, got " + momentum);
    }
    if (estimate && xi) {
      throw new IllegalArgumentException("--xi: measures EF14's TopK aggregation error; not defined for "
          + "--uplink-feedback " + uplinkFeedback.cliName());
    }
    if (upMemoryRate != null && uplinkFeedback != org.bitopk.job.engine.UplinkFeedback.ARTEMIS) {
      throw new IllegalArgumentException("--up-memory-rate: the rate of Artemis' uplink memory; applies to "
          + "--uplink-feedback artemis only, got --uplink-feedback " + uplinkFeedback.cliName());
    }
    if (uplinkFeedback == org.bitopk.job.engine.UplinkFeedback.ARTEMIS && upMemoryRate == null && !uplink.unbiased()) {
      throw new IllegalArgumentException(missingRate("--up-memory-rate", "--uplink-feedback artemis",
          "--uplink", uplink));
    }
    if (downlinkScheme == DownlinkScheme.MCM && downMemoryRate == null && !downlink.unbiased()) {
      throw new IllegalArgumentException(missingRate("--down-memory-rate", "--downlink-scheme mcm",
          "--downlink", downlink));
    }
    if (downMemoryRate != null && downlinkScheme != DownlinkScheme.MCM) {
      throw new IllegalArgumentException("--down-memory-rate: the rate of MCM's downlink memory; applies to "
          + "--downlink-scheme mcm only, got --downlink-scheme " + downlinkScheme.cliName());
    }
    if (!captureVectors.isEmpty() && uplinkFeedback != org.bitopk.job.engine.UplinkFeedback.EF14) {
      throw new IllegalArgumentException("--capture-vectors: captures the compensated vectors of classic error "
          + "feedback (--uplink-feedback ef14); got --uplink-feedback " + uplinkFeedback.cliName());
    }
    if ((downlinkScheme == DownlinkScheme.AVERAGE) == (mode == Mode.BIDIRECTIONAL)) {
      throw new IllegalArgumentException("--downlink-scheme: " + downlinkScheme.cliName() + " does not apply to "
          + "--mode " + mode.cliName() + " (bidirectional: ef, ef21-p or mcm; unidirectional and dense: average)");
    }
  }

  /** The settings as flag name → value (resolved defaults included; output omitted when not given). */
  public Map<String, Object> toFlags() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("master", master);
    m.put("dataset", table == null ? dataset : null);
    m.put("data", table == null ? data : table.path());
    m.put("model", isCounterexample() ? null : model.flagValue());
    m.put("mode", mode.cliName());
    m.put("workers", workers);
    m.put("tasks", tasks);
    m.put("uplink", uplink.toString());
    m.put("downlink", downlink.toString());
    m.put("density-up", densityUp);
    m.put("density-down", densityDown);
    if (kUp != null) {
      m.put("k-up", kUp);
    }
    if (kDown != null) {
      m.put("k-down", kDown);
    }
    m.put("k-rounding", kRounding.text());
    m.put("lr", learningRate);
    m.put("lr-decay", lrDecay);
    m.put("momentum", momentum);
    m.put("uplink-feedback", uplinkFeedback.cliName());
    m.put("downlink-scheme", downlinkScheme.cliName());
    if (upMemoryRate != null) {
      m.put("up-memory-rate", upMemoryRate);
    }
    if (downMemoryRate != null) {
      m.put("down-memory-rate", downMemoryRate);
    }
    m.put("batch-size", batchSize);
    m.put("epochs", epochs);
    m.put("max-iterations", maxIterations);
    m.put("split", nonIid ? "non-iid" : "iid");
    m.put("seed", seed);
    m.put("output", output);
    m.put("eval-every", evalEvery);
    m.put("consistency-check-every", consistencyCheckEvery);
    m.put("snapshot-every", snapshotEvery);
    m.put("update-window", updateWindow);
    m.put("xi", xi);
    m.put("capture-vectors", captureVectors.isEmpty() ? null : captureVectorsText(captureVectors));
    m.put("checkpoint-every", checkpointEvery);
    if (x0 != null) {
      m.put("x0", x0);
    }
    if (table != null) {
      m.putAll(table.toFlags());
    }
    return m;
  }

  /**
   * The settings as {@code config.json} records them: {@link #toFlags()} without unset values (no
   * {@code null}: a config file refuses them) and without the settings that do not apply to the problem
   * ({@code model}, {@code split}, {@code batch-size} and {@code data} of the counterexample,
   * {@code k-rounding} of a dense run, a density replaced by {@code k-up}/{@code k-down}), which a config
   * file may not set. The mode's compressors and densities stay, with the values the mode implies (e.g.
   * {@code uplink: none} in dense mode), so every run's config.json has the same columns.
   */
  public Map<String, Object> recordedFlags() {
    Map<String, Object> m = new LinkedHashMap<>(toFlags());
    m.values().removeIf(Objects::isNull);
    if (isCounterexample()) {
      m.keySet().removeAll(java.util.List.of("model", "split", "batch-size", "data"));
    }
    if (mode == Mode.DENSE) {
      m.remove("k-rounding");   // dense mode keeps every coordinate: no k to round
    }
    if (kUp != null) {
      m.remove("density-up");   // k is given directly: the density is not used
    }
    if (kDown != null) {
      m.remove("density-down");
    }
    return m;
  }

  public boolean isCounterexample() {
    return counterexample != null;
  }

  /** The counterexample's d, centres and x₀ generator, or null for other data sets. */
  public CounterexampleSetting counterexample() {
    return counterexample;
  }

  /** The file x₀ of the counterexample is read from (any Hadoop FileSystem URI), or null: generated. */
  public String x0() {
    return x0;
  }

  /** The uplink k given directly, or null: from {@link #densityUp()} by {@link #kRounding()}. */
  public Integer kUp() {
    return kUp;
  }

  /** The downlink k given directly, or null: from {@link #densityDown()} by {@link #kRounding()}. */
  public Integer kDown() {
    return kDown;
  }

  /** Spark master URL, or null: the one spark-submit set, else local[*]. */
  public String master() { return master; }
  /** Rounds between checkpoints; 0 = no checkpoints. */
  public int checkpointEvery() { return checkpointEvery; }
  /** True when continuing the run in {@link #output()} from its newest checkpoint. */
  public boolean resume() { return resume; }
  public String dataset() { return dataset; }
  /** Table input (a path read with a Spark data source, a catalog table or a DataFrame), or null for files. */
  public TableInput table() { return table; }
  /** Data directory URI, or null for the dataset's default location. */
  public String data() { return data; }
  /** A built-in {@link ModelArchitecture} or a network of one's own. */
  public ModelSpec model() { return model; }
  public Mode mode() { return mode; }
  public int workers() { return workers; }
  /** Spark tasks per round the workers are packed into; 0 = min(workers, the cluster's task slots). */
  public int tasks() { return tasks; }
  /** Effective uplink compressor ("none" in dense mode). */
  public CompressorSpec uplink() { return uplink; }
  /** Effective downlink compressor ("none" unless bidirectional). */
  public CompressorSpec downlink() { return downlink; }
  public double densityUp() { return densityUp; }
  public double densityDown() { return densityDown; }
  /** How a density becomes k: floor (default) or Zou's reference scripts' rounding. */
  public KRounding kRounding() { return kRounding; }
  public double learningRate() { return learningRate; }
  public double lrDecay() { return lrDecay; }
  public double momentum() { return momentum; }
  public int batchSize() { return batchSize; }
  public int epochs() { return epochs; }
  /** Upper bound on iterations; 0 = no bound beyond the epochs. */
  public long maxIterations() { return maxIterations; }
  public boolean nonIid() { return nonIid; }
  public long seed() { return seed; }
  /** Output directory URI, or null for runs/&lt;timestamp&gt;. */
  public String output() { return output; }
  public boolean overwrite() { return overwrite; }
  public int evalEvery() { return evalEvery; }
  public int consistencyCheckEvery() { return consistencyCheckEvery; }
  public int snapshotEvery() { return snapshotEvery; }
  public int updateWindow() { return updateWindow; }
  public boolean xi() { return xi; }
  /** The 1-based rounds whose compensated vectors are captured, ascending (empty: none). */
  public java.util.List<Integer> captureVectors() { return captureVectors; }
  /** Workers' memory: ef14 (default), ef21 or none. */
  public org.bitopk.job.engine.UplinkFeedback uplinkFeedback() { return uplinkFeedback; }
  /** What the server broadcasts: ef (bidirectional default), ef21-p, or average (the other modes). */
  public DownlinkScheme downlinkScheme() { return downlinkScheme; }
  /** α_up of --uplink-feedback artemis as given, or null (resolved from the compressor's ω in the run plan). */
  public Double upMemoryRate() { return upMemoryRate; }
  /** α_dwn of --downlink-scheme mcm as given, or null (resolved from the compressor's ω in the run plan). */
  public Double downMemoryRate() { return downMemoryRate; }
  public boolean quiet() { return quiet; }

  /** "1,100,1000": the flag's text for a list of rounds. */
  static String captureVectorsText(java.util.List<Integer> rounds) {
    StringBuilder text = new StringBuilder();
    for (int r : rounds) {
      text.append(text.length() == 0 ? "" : ",").append(r);
    }
    return text.toString();
  }

  /** Learning rate of an epoch (0-based): lr · lrDecay^epoch. */
  public double learningRate(int epochIndex) {
    return learningRate * Math.pow(lrDecay, epochIndex);
  }

  /** Default learning rate: 0.1 (tuned for the MLPs at batch 32), 0.01 for the counterexample (the paper's). */
  public static double defaultLearningRate(String dataset) {
    return CounterexampleSetting.names(dataset) ? 0.01 : 0.1;
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.master = master; b.dataset = dataset; b.data = data; b.model = model; b.mode = mode; b.workers = workers; b.tasks = tasks;
    b.uplink = uplink; b.downlink = downlink; b.densityUp = densityUp; b.densityDown = densityDown;
    b.kRounding = kRounding; b.kUp = kUp; b.kDown = kDown; b.x0 = x0;
    b.learningRate = learningRate; b.lrDecay = lrDecay; b.momentum = momentum; b.batchSize = batchSize;
    b.epochs = epochs; b.maxIterations = maxIterations; b.nonIid = nonIid; b.seed = seed; b.output = output;
    b.overwrite = overwrite; b.evalEvery = evalEvery; b.consistencyCheckEvery = consistencyCheckEvery;
    b.snapshotEvery = snapshotEvery; b.updateWindow = updateWindow; b.xi = xi; b.quiet = quiet;
    b.captureVectors = captureVectors;
    b.uplinkFeedback = uplinkFeedback; b.downlinkScheme = downlinkScheme;
    b.upMemoryRate = upMemoryRate; b.downMemoryRate = downMemoryRate;
    b.checkpointEvery = checkpointEvery; b.resume = resume; b.table = table;
    return b;
  }

  /**
   * The message for a memory rate α left out where its default 1/(2(ω + 1)) is not defined: shared by the
   * settings' check and the run plan that computes ω.
   */
  public static String missingRate(String flag, String scheme, String compressorFlag, CompressorSpec compressor) {
    return flag + ": required with " + scheme + " and " + compressorFlag + " " + compressor + ": the default "
        + "1/(2(omega + 1)) needs an unbiased compressor of known variance omega (randomk:scaled, natural); 1 keeps "
        + "the whole message (EF21 / EF21-P)";
  }

  /** Validating builder; every setter names its flag in the error message. */
  public static final class Builder {
    private String master;
    private String dataset = "fashion-mnist";
    private String data;
    private ModelSpec model;
    private Mode mode = Mode.BIDIRECTIONAL;
    private Integer workers;
    private int tasks;
    private CompressorSpec uplink = CompressorSpec.parse("topk");
    private CompressorSpec downlink = CompressorSpec.parse("topk");
    private double densityUp = 0.01;
    private double densityDown = 0.01;
    private KRounding kRounding = KRounding.FLOOR;
    private Integer kUp;
    private Integer kDown;
    private String x0;
    private Double learningRate;
    private double lrDecay = 1.0;
    private double momentum = 0.0;
    private int batchSize = 32;
    private int epochs = 1;
    private long maxIterations = 0;
    private boolean nonIid;
    private long seed = 42;
    private String output;
    private boolean overwrite;
    private int evalEvery = 1;
    private int consistencyCheckEvery = 100;
    private int snapshotEvery = 32;
    private int updateWindow = 32;
    private boolean xi;
    private java.util.List<Integer> captureVectors = java.util.List.of();
    private boolean quiet;
    private org.bitopk.job.engine.UplinkFeedback uplinkFeedback = org.bitopk.job.engine.UplinkFeedback.EF14;
    private DownlinkScheme downlinkScheme;
    private Double upMemoryRate;
    private Double downMemoryRate;
    private int checkpointEvery;
    private boolean resume;
    private TableInput table;

    private Builder() {}

    /** The Spark master URL; its syntax is checked here ({@link MasterUrl}), its reachability before Spark starts. */
    public Builder master(String v) {
      String m = nonBlank("--master", v);
      MasterUrl.parse(m);
      master = m;
      return this;
    }

    public Builder dataset(String v) {
      String d = nonBlank("--dataset", v);
      org.bitopk.job.problem.network.DatasetChoice.parse(d); // one line naming the text and the choices
      if (CounterexampleSetting.names(d)) {
        try {
          CounterexampleSetting.parse(d);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--dataset: " + e.getMessage(), e);
        }
      }
      dataset = d;
      return this;
    }

    /** The data directory URI; null for the dataset's default location (an empty text is refused). */
    public Builder data(String v) { data = v == null ? null : nonBlank("--data", v); return this; }
    public Builder model(ModelSpec v) { model = v; return this; }
    public Builder mode(Mode v) { mode = Objects.requireNonNull(v, "--mode"); return this; }
    public Builder workers(int v) { workers = atLeast("--workers", v, 1); return this; }

    /** Spark tasks per round (1..workers); 0 = as many as the cluster has task slots, at most workers. */
    public Builder tasks(int v) { tasks = atLeast("--tasks", v, 0); return this; }
    public Builder uplink(CompressorSpec v) { uplink = Objects.requireNonNull(v, "--uplink"); return this; }
    public Builder downlink(CompressorSpec v) { downlink = Objects.requireNonNull(v, "--downlink"); return this; }
    public Builder densityUp(double v) { densityUp = density("--density-up", v); return this; }
    public Builder densityDown(double v) { densityDown = density("--density-down", v); return this; }
    /** The uplink k directly, instead of a density (null: from the density). */
    public Builder kUp(Integer v) { kUp = v == null ? null : atLeast("--k-up", v, 1); return this; }
    /** The downlink k directly, instead of a density (null: from the density). */
    public Builder kDown(Integer v) { kDown = v == null ? null : atLeast("--k-down", v, 1); return this; }
    /** The counterexample's x₀ file (null: generated from the seed; an empty text is refused). */
    public Builder x0(String v) { x0 = v == null ? null : nonBlank("--x0", v); return this; }
    public Builder kRounding(KRounding v) { kRounding = Objects.requireNonNull(v, "--k-rounding"); return this; }

    public Builder learningRate(double v) {
      if (!(v > 0 && Double.isFinite(v))) {
        throw new IllegalArgumentException("--lr: expected a positive number, got " + v);
      }
      learningRate = v;
      return this;
    }

    public Builder lrDecay(double v) {
      if (!(v > 0 && v <= 1)) {
        throw new IllegalArgumentException("--lr-decay: expected a factor in (0, 1], got " + v);
      }
      lrDecay = v;
      return this;
    }

    public Builder momentum(double v) {
      if (!(v >= 0 && v < 1)) {
        throw new IllegalArgumentException("--momentum: expected a value in [0, 1), got " + v);
      }
      momentum = v;
      return this;
    }

    public Builder batchSize(int v) { batchSize = atLeast("--batch-size", v, 1); return this; }
    public Builder epochs(int v) { epochs = atLeast("--epochs", v, 1); return this; }

    public Builder maxIterations(long v) {
      if (v < 0) {
        throw new IllegalArgumentException("--max-iterations: expected >= 0 (0 = no limit), got " + v);
      }
      maxIterations = v;
      return this;
    }

    public Builder nonIid(boolean v) { nonIid = v; return this; }
    public Builder seed(long v) { seed = v; return this; }
    /** The output directory URI; null for runs/&lt;timestamp&gt; (an empty text is refused). */
    public Builder output(String v) { output = v == null ? null : nonBlank("--output", v); return this; }
    public Builder overwrite(boolean v) { overwrite = v; return this; }
    public Builder evalEvery(int v) { evalEvery = atLeast("--eval-every", v, 1); return this; }

    public Builder consistencyCheckEvery(int v) {
      consistencyCheckEvery = atLeast("--consistency-check-every", v, 0);
      return this;
    }

    public Builder snapshotEvery(int v) { snapshotEvery = atLeast("--snapshot-every", v, 1); return this; }
    public Builder updateWindow(int v) { updateWindow = atLeast("--update-window", v, 1); return this; }
    public Builder xi(boolean v) { xi = v; return this; }

    /**
     * The rounds whose compensated vectors are written, as the flag's text: comma-separated 1-based round
     * numbers, e.g. {@code 1,100,1000}; null for none. Refused: an empty text, an entry that is not a positive
     * integer, a round listed twice. Rounds beyond the run's end are refused once the run's length is known
     * ({@code PreparedRun}).
     */
    public Builder captureVectors(String v) {
      if (v == null) {
        captureVectors = java.util.List.of();
        return this;
      }
      String text = nonBlank("--capture-vectors", v);
      java.util.TreeSet<Integer> rounds = new java.util.TreeSet<>();
      for (String part : text.split(",", -1)) {
        String entry = part.trim();
        int round;
        try {
          round = Integer.parseInt(entry);
        } catch (NumberFormatException e) {
          round = 0;
        }
        if (round < 1) {
          throw new IllegalArgumentException("--capture-vectors: '" + entry + "' is not a round number; expected "
              + "comma-separated 1-based rounds, e.g. 1,100,1000");
        }
        if (!rounds.add(round)) {
          throw new IllegalArgumentException("--capture-vectors: round " + round + " is listed twice in '" + text
              + "'");
        }
      }
      captureVectors = java.util.List.copyOf(rounds);
      return this;
    }

    public Builder uplinkFeedback(org.bitopk.job.engine.UplinkFeedback v) {
      uplinkFeedback = Objects.requireNonNull(v, "--uplink-feedback");
      return this;
    }

    /** null: the mode's default (ef when bidirectional, else average). */
    public Builder downlinkScheme(DownlinkScheme v) { downlinkScheme = v; return this; }

    /** α_up in (0, 1], or null for the default 1/(2(ω + 1)) of an unbiased compressor. */
    public Builder upMemoryRate(Double v) { upMemoryRate = rate("--up-memory-rate", v); return this; }

    /** α_dwn in (0, 1], or null for the default 1/(2(ω + 1)) of an unbiased compressor. */
    public Builder downMemoryRate(Double v) { downMemoryRate = rate("--down-memory-rate", v); return this; }

    private static Double rate(String flag, Double v) {
      if (v != null && !(v > 0 && v <= 1)) {
        throw new IllegalArgumentException(flag + ": expected a rate in (0, 1], got " + v);
      }
      return v;
    }
    public Builder quiet(boolean v) { quiet = v; return this; }

    /** Every N rounds, write a checkpoint to output/checkpoints (0 = never). */
    public Builder checkpointEvery(int v) { checkpointEvery = atLeast("--checkpoint-every", v, 0); return this; }

    /** Train on a table instead of a named data set (null: the data set of {@link #dataset}). */
    public Builder table(TableInput v) { table = v; return this; }

    /** Continue the run in {@link #output} from its newest intact checkpoint instead of starting afresh. */
    public Builder resume(boolean v) { resume = v; return this; }

    public TrainingConfig build() {
      return new TrainingConfig(this);
    }

    private static String nonBlank(String flag, String v) {
      if (v == null || v.isBlank()) {
        throw new IllegalArgumentException(flag + ": expected a non-empty value, got '" + (v == null ? "" : v)
            + "' (leave the flag out for its default)");
      }
      return v.trim();
    }

    private static int atLeast(String flag, int v, int min) {
      if (v < min) {
        throw new IllegalArgumentException(flag + ": expected an integer >= " + min + ", got " + v);
      }
      return v;
    }

    private static double density(String flag, double v) {
      if (!(v > 0 && v <= 1)) {
        throw new IllegalArgumentException(flag + ": expected a density in (0, 1], got " + v);
      }
      return v;
    }
  }
}
