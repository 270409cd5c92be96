package org.bitopk.job.config;

/**
 * The train flags' names, written here once: the settings' declarations ({@link TrainSettings}), and so the
 * command line's options, a run's {@code config.json} and the keys of a grid point, and the messages about a flag
 * (which start with its name) all take them from these constants. Keys are the flag names without dashes;
 * {@link #flag} adds them. The names only: {@link TrainSettings} declares what each setting is.
 */
public final class TrainFlags {
  public static final String CONFIG = "config";
  public static final String MASTER = "master";
  public static final String DATASET = "dataset";
  public static final String DATA = "data";
  public static final String DATA_FORMAT = "data-format";
  public static final String TABLE = "table";
  public static final String FEATURES = "features";
  public static final String LABEL = "label";
  public static final String INPUT_SHAPE = "input-shape";
  public static final String TEST_DATA = "test-data";
  public static final String TEST_FRACTION = "test-fraction";
  public static final String NORMALIZE = "normalize";
  public static final String FEATURE_SCALE = "feature-scale";
  public static final String MODEL = "model";
  public static final String MODE = "mode";
  public static final String WORKERS = "workers";
  public static final String TASKS = "tasks";
  public static final String UPLINK = "uplink";
  public static final String DOWNLINK = "downlink";
  public static final String DENSITY_UP = "density-up";
  public static final String DENSITY_DOWN = "density-down";
  public static final String K_UP = "k-up";
  public static final String K_DOWN = "k-down";
  public static final String K_ROUNDING = "k-rounding";
  public static final String VALUES_UP = "values-up";
  public static final String VALUES_DOWN = "values-down";
  public static final String LR = "lr";
  public static final String LR_DECAY = "lr-decay";
  public static final String UPLINK_FEEDBACK = "uplink-feedback";
  public static final String UP_MEMORY_RATE = "up-memory-rate";
  public static final String DOWN_MEMORY_RATE = "down-memory-rate";
  public static final String DOWNLINK_SCHEME = "downlink-scheme";
  public static final String MOMENTUM = "momentum";
  public static final String BATCH_SIZE = "batch-size";
  public static final String EPOCHS = "epochs";
  public static final String MAX_ITERATIONS = "max-iterations";
  public static final String SPLIT = "split";
  public static final String SEED = "seed";
  public static final String X0 = "x0";
  public static final String OUTPUT = "output";
  public static final String OVERWRITE = "overwrite";
  public static final String EVAL_EVERY = "eval-every";
  public static final String CONSISTENCY_CHECK_EVERY = "consistency-check-every";
  public static final String SNAPSHOT_EVERY = "snapshot-every";
  public static final String UPDATE_WINDOW = "update-window";
  public static final String XI = "xi";
  public static final String CAPTURE_VECTORS = "capture-vectors";
  public static final String CHECKPOINT_EVERY = "checkpoint-every";
  public static final String RESUME = "resume";
  public static final String QUIET = "quiet";
  public static final String VERBOSE = "verbose";

  private TrainFlags() {}

  /** The flag as typed on the command line and named in messages: {@code --density-up} for {@code density-up}. */
  public static String flag(String key) {
    return "--" + key;
  }
}
