package org.bitopk.ml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.attribute.Attribute;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.datasets.NormalizationSpec;
import org.bitopk.job.config.Mode;
import org.bitopk.job.config.TableInput;
import org.bitopk.job.config.TrainSetting;
import org.bitopk.job.config.TrainSettings;
import org.bitopk.job.config.TrainingConfig;
import org.bitopk.job.config.TrainingConfigBuilder;
import org.bitopk.job.engine.DriverState;
import org.bitopk.job.engine.RunListener;
import org.bitopk.job.engine.RunSummary;
import org.bitopk.job.problem.network.ModelArchitecture;
import org.bitopk.job.problem.network.ModelChoice;
import org.bitopk.job.problem.network.ModelSpec;
import org.bitopk.job.run.PreparedRun;
import org.bitopk.job.run.TrainingRun;
import org.bitopk.job.spark.BitopkKryoRegistrator;
import org.bitopk.job.table.InputNames;
import org.bitopk.job.table.InputShape;
import org.bitopk.job.table.TableData;

/**
 * A Spark ML {@link Estimator} that trains a classifier with bitopk: {@link #fit} runs exactly the training
 * of the {@code train} command (same driver loop, compression and run directory with config.json and the
 * metric lines) on the rows of the dataset, and returns a {@link BitopkClassificationModel}.
 *
 * <p>The label column holds class indices 0, 1, ... (as {@code StringIndexer} makes them; its metadata's
 * number of classes is used when present, else the largest label + 1); the features column is an ML
 * {@code Vector} (as {@code VectorAssembler} makes it) or an array of numbers. The parameters mirror the
 * command line's flags; {@code testFraction} of the rows is held out (seeded) for the test metrics of the
 * run directory.
 */
public final class BitopkClassifier extends Estimator<BitopkClassificationModel> implements DefaultParamsWritable {
  private static final long serialVersionUID = 1L;
  private static final InputNames NAMES = InputNames.of("labelCol", "featuresCol", "inputShape", "normalize",
      "testFraction", "workers", "testFraction", "model", "batchSize");

  private final String uid;

  private Param<String> featuresCol;
  private Param<String> labelCol;
  private Param<String> predictionCol;
  private Param<String> probabilityCol;
  private Param<String> rawPredictionCol;
  private Param<String> mode;
  private Param<String> uplink;
  private Param<String> downlink;
  private DoubleParam densityUp;
  private DoubleParam densityDown;
  private IntParam workers;
  private DoubleParam lr;
  private DoubleParam lrDecay;
  private DoubleParam momentum;
  private IntParam epochs;
  private LongParam maxIterations;
  private IntParam batchSize;
  private Param<String> model;
  private Param<String> split;
  private LongParam seed;
  private DoubleParam testFraction;
  private Param<String> inputShape;
  private Param<String> normalize;
  private DoubleParam featureScale;
  private Param<String> outputDir;
  private BooleanParam overwrite;

  public BitopkClassifier() {
    this(Identifiable$.MODULE$.randomUID("bitopk"));
  }

  /** With a given uid, as Spark ML's persistence and {@code copy} create instances. */
  public BitopkClassifier(String uid) {
    this.uid = uid;
    featuresCol = new Param<>(this, "featuresCol", "features column: an ML Vector or an array of numbers");
    labelCol = new Param<>(this, "labelCol", "label column: class indices 0, 1, ... (e.g. from StringIndexer)");
    predictionCol = new Param<>(this, "predictionCol", "prediction column name");
    probabilityCol = new Param<>(this, "probabilityCol", "column of the class probabilities");
    rawPredictionCol = new Param<>(this, "rawPredictionCol", "column of the raw scores (log-probabilities)");
    mode = new Param<>(this, "mode", "bidirectional, unidirectional or dense",
        Validators.<String>of(v -> Mode.parse(v) != null));
    uplink = new Param<>(this, "uplink", "worker compressor: topk, gaussiank, sidco-e, dgc, randomk, "
        + "threshold:tau=T, none, ...", Validators.<String>of(v -> CompressorSpec.parse(v) != null));
    downlink = new Param<>(this, "downlink", "server compressor (bidirectional mode), same choices as uplink",
        Validators.<String>of(v -> CompressorSpec.parse(v) != null));
    densityUp = new DoubleParam(this, "densityUp", "uplink density in (0, 1]: k = densityUp * d",
        ParamValidators.inRange(0, 1, false, true));
    densityDown = new DoubleParam(this, "densityDown", "downlink density in (0, 1]",
        ParamValidators.inRange(0, 1, false, true));
    workers = new IntParam(this, "workers", "number of workers (Spark partitions of the training data)",
        ParamValidators.gtEq(1));
    lr = new DoubleParam(this, "lr", "learning rate, applied by the workers before compression",
        ParamValidators.gt(0));
    lrDecay = new DoubleParam(this, "lrDecay", "learning-rate factor per epoch, in (0, 1]",
        ParamValidators.inRange(0, 1, false, true));
    momentum = new DoubleParam(this, "momentum", "worker-side momentum in [0, 1)",
        ParamValidators.inRange(0, 1, true, false));
    epochs = new IntParam(this, "epochs", "epochs: rounds of min over workers of floor(shard / batchSize)",
        ParamValidators.gtEq(1));
    maxIterations = new LongParam(this, "maxIterations", "stop after this many rounds; 0 = no limit",
        ParamValidators.gtEq(0));
    batchSize = new IntParam(this, "batchSize", "minibatch size per worker", ParamValidators.gtEq(1));
    model = new Param<>(this, "model", "network: " + ModelArchitecture.cliNames() + ", or a DL4J "
        + "configuration file (as the command line's --model)", Validators.<String>of(v -> !v.isBlank()));
    split = new Param<>(this, "split", "iid or non-iid", ParamValidators.inArray(new String[] {"iid", "non-iid"}));
    seed = new LongParam(this, "seed", "seed of initialisation, split, minibatches and compressors");
    testFraction = new DoubleParam(this, "testFraction", "seeded fraction of the rows held out for the run's "
        + "test metrics", ParamValidators.inRange(0, 1, false, false));
    inputShape = new Param<>(this, "inputShape", "CxHxW image shape of the features; empty: inferred",
        Validators.<String>of(v -> v.isEmpty() || InputShape.parse(v, "inputShape") != null));
    normalize = new Param<>(this, "normalize", "auto (per-channel mean/std of the training rows), none, or "
        + "MEAN:STD per channel", Validators.<String>of(v -> NormalizationSpec.parse(v, 1) != null));
    featureScale = new DoubleParam(this, "featureScale", "divide the features by this before normalising "
        + "(255 for 8-bit pixels)", ParamValidators.gt(0));
    outputDir = new Param<>(this, "outputDir", "run directory for config.json, metrics and model.zip (any "
        + "Hadoop URI); empty: runs/<UTC timestamp>-<random>");
    overwrite = new BooleanParam(this, "overwrite", "replace a finished run in outputDir");
    setDefault(featuresCol, "features");
    setDefault(labelCol, "label");
    setDefault(predictionCol, "prediction");
    setDefault(probabilityCol, "probability");
    setDefault(rawPredictionCol, "rawPrediction");
    // the command line's defaults, as its settings declare them
    setDefault(mode, recorded(TrainSettings.MODE));
    setDefault(uplink, recorded(TrainSettings.UPLINK));
    setDefault(downlink, recorded(TrainSettings.DOWNLINK));
    setDefault(densityUp, TrainSettings.DENSITY_UP.defaultValue().orElseThrow());
    setDefault(densityDown, TrainSettings.DENSITY_DOWN.defaultValue().orElseThrow());
    setDefault(workers, TrainSettings.WORKERS.defaultValue().orElseThrow());
    setDefault(lr, TrainSettings.LR.defaultValue().orElseThrow());
    setDefault(lrDecay, TrainSettings.LR_DECAY.defaultValue().orElseThrow());
    setDefault(momentum, TrainSettings.MOMENTUM.defaultValue().orElseThrow());
    setDefault(epochs, TrainSettings.EPOCHS.defaultValue().orElseThrow());
    setDefault(maxIterations, TrainSettings.MAX_ITERATIONS.defaultValue().orElseThrow());
    setDefault(batchSize, TrainSettings.BATCH_SIZE.defaultValue().orElseThrow());
    setDefault(model, "mlp");
    setDefault(split, TrainSettings.SPLIT.defaultValue().orElseThrow());
    setDefault(seed, TrainSettings.SEED.defaultValue().orElseThrow());
    setDefault(testFraction, TrainSettings.TEST_FRACTION.defaultValue().orElseThrow());
    setDefault(inputShape, "");
    setDefault(normalize, TrainSettings.NORMALIZE.defaultValue().orElseThrow());
    setDefault(featureScale, TrainSettings.FEATURE_SCALE.defaultValue().orElseThrow());
    setDefault(outputDir, "");
    setDefault(overwrite, TrainSettings.OVERWRITE.defaultValue().orElseThrow());
  }

  /** A setting's default as its flag's text, e.g. {@code topk}. */
  private static <T> String recorded(TrainSetting<T> setting) {
    return String.valueOf(setting.recordedForm(setting.defaultValue().orElseThrow()));
  }

  @Override
  public String uid() {
    return uid;
  }

  // ---- parameters: the Param (for Spark ML's reflection), its getter and its setter

  public Param<String> featuresCol() { return featuresCol; }
  public String getFeaturesCol() { return $(featuresCol); }
  public BitopkClassifier setFeaturesCol(String v) { set(featuresCol, v); return this; }

  public Param<String> labelCol() { return labelCol; }
  public String getLabelCol() { return $(labelCol); }
  public BitopkClassifier setLabelCol(String v) { set(labelCol, v); return this; }

  public Param<String> predictionCol() { return predictionCol; }
  public String getPredictionCol() { return $(predictionCol); }
  public BitopkClassifier setPredictionCol(String v) { set(predictionCol, v); return this; }

  public Param<String> probabilityCol() { return probabilityCol; }
  public String getProbabilityCol() { return $(probabilityCol); }
  public BitopkClassifier setProbabilityCol(String v) { set(probabilityCol, v); return this; }

  public Param<String> rawPredictionCol() { return rawPredictionCol; }
  public String getRawPredictionCol() { return $(rawPredictionCol); }
  public BitopkClassifier setRawPredictionCol(String v) { set(rawPredictionCol, v); return this; }

  public Param<String> mode() { return mode; }
  public String getMode() { return $(mode); }
  public BitopkClassifier setMode(String v) { set(mode, v); return this; }

  public Param<String> uplink() { return uplink; }
  public String getUplink() { return $(uplink); }
  public BitopkClassifier setUplink(String v) { set(uplink, v); return this; }

  public Param<String> downlink() { return downlink; }
  public String getDownlink() { return $(downlink); }
  public BitopkClassifier setDownlink(String v) { set(downlink, v); return this; }

  public DoubleParam densityUp() { return densityUp; }
  public double getDensityUp() { return (Double) $(densityUp); }
  public BitopkClassifier setDensityUp(double v) { set(densityUp, v); return this; }

  public DoubleParam densityDown() { return densityDown; }
  public double getDensityDown() { return (Double) $(densityDown); }
  public BitopkClassifier setDensityDown(double v) { set(densityDown, v); return this; }

  public IntParam workers() { return workers; }
  public int getWorkers() { return (Integer) $(workers); }
  public BitopkClassifier setWorkers(int v) { set(workers, v); return this; }

  public DoubleParam lr() { return lr; }
  public double getLr() { return (Double) $(lr); }
  public BitopkClassifier setLr(double v) { set(lr, v); return this; }

  public DoubleParam lrDecay() { return lrDecay; }
  public double getLrDecay() { return (Double) $(lrDecay); }
  public BitopkClassifier setLrDecay(double v) { set(lrDecay, v); return this; }

  public DoubleParam momentum() { return momentum; }
  public double getMomentum() { return (Double) $(momentum); }
  public BitopkClassifier setMomentum(double v) { set(momentum, v); return this; }

  public IntParam epochs() { return epochs; }
  public int getEpochs() { return (Integer) $(epochs); }
  public BitopkClassifier setEpochs(int v) { set(epochs, v); return this; }

  public LongParam maxIterations() { return maxIterations; }
  public long getMaxIterations() { return (Long) $(maxIterations); }
  public BitopkClassifier setMaxIterations(long v) { set(maxIterations, v); return this; }

  public IntParam batchSize() { return batchSize; }
  public int getBatchSize() { return (Integer) $(batchSize); }
  public BitopkClassifier setBatchSize(int v) { set(batchSize, v); return this; }

  public Param<String> model() { return model; }
  public String getModel() { return $(model); }
  public BitopkClassifier setModel(String v) { set(model, v); return this; }

  public Param<String> split() { return split; }
  public String getSplit() { return $(split); }
  public BitopkClassifier setSplit(String v) { set(split, v); return this; }

  public LongParam seed() { return seed; }
  public long getSeed() { return (Long) $(seed); }
  public BitopkClassifier setSeed(long v) { set(seed, v); return this; }

  public DoubleParam testFraction() { return testFraction; }
  public double getTestFraction() { return (Double) $(testFraction); }
  public BitopkClassifier setTestFraction(double v) { set(testFraction, v); return this; }

  public Param<String> inputShape() { return inputShape; }
  public String getInputShape() { return $(inputShape); }
  public BitopkClassifier setInputShape(String v) { set(inputShape, v); return this; }

  public Param<String> normalize() { return normalize; }
  public String getNormalize() { return $(normalize); }
  public BitopkClassifier setNormalize(String v) { set(normalize, v); return this; }

  public DoubleParam featureScale() { return featureScale; }
  public double getFeatureScale() { return (Double) $(featureScale); }
  public BitopkClassifier setFeatureScale(double v) { set(featureScale, v); return this; }

  public Param<String> outputDir() { return outputDir; }
  public String getOutputDir() { return $(outputDir); }
  public BitopkClassifier setOutputDir(String v) { set(outputDir, v); return this; }

  public BooleanParam overwrite() { return overwrite; }
  public boolean getOverwrite() { return (Boolean) $(overwrite); }
  public BitopkClassifier setOverwrite(boolean v) { set(overwrite, v); return this; }

  // ---- Estimator

  @Override
  public StructType transformSchema(StructType schema) {
    Schemas.requireColumn(schema, getLabelCol(), "labelCol");
    Schemas.requireFeatures(schema, getFeaturesCol());
    return Schemas.withPredictions(schema, getRawPredictionCol(), getProbabilityCol(), getPredictionCol());
  }

  /**
   * Trains on the rows of {@code dataset} and returns the model; the run directory ({@link #outputDir()})
   * holds config.json, the metric lines, model.zip and the report, as a {@code train} run's does.
   *
   * @throws IllegalArgumentException naming the parameter, for bad columns, rows, labels or settings
   */
  @Override
  public BitopkClassificationModel fit(Dataset<?> dataset) {
    transformSchema(dataset.schema());
    Dataset<Row> frame = dataset.toDF();
    requireKryo(frame.sparkSession().sparkContext().getConf());
    OptionalInt classes = declaredClasses(frame.schema());
    String output = getOutputDir().isEmpty()
        ? PreparedRun.defaultOutput() + "-" + UUID.randomUUID().toString().substring(0, 6) : getOutputDir();
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(frame.sparkSession().sparkContext());
    TrainingConfig config = config(output, sc);
    AtomicReference<TableData> opened = new AtomicReference<>();
    FinalParameters last = new FinalParameters();
    TrainingRun.Result result;
    try {
      result = TrainingRun.execute(sc, config, (context, c) -> {
        TableData.Builder table = TableData.builder().names(NAMES).train(frame, "the dataset passed to fit")
            .label(getLabelCol()).features(getFeaturesCol())
            .inputShape(getInputShape().isEmpty() ? null : InputShape.parse(getInputShape(), "inputShape"))
            .normalization(NormalizationSpec.parse(getNormalize(), getFeatureScale()))
            .testFraction(getTestFraction()).workers(c.workers()).nonIid(c.nonIid()).seed(c.seed());
        classes.ifPresent(table::numClasses);
        TableData data = table.build();
        opened.set(data);
        return data;
      }, false, List.of(last));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the run directory " + output, e);
    }
    TableData data = opened.get();
    int[] shape = {data.channels(), data.height(), data.width()};
    TrainedNetwork trained = new TrainedNetwork(
        config.model().build(config.seed(), shape[0], shape[1], shape[2], data.labels().numClasses()).toJson(),
        last.parameters, shape, data.labels().numClasses(), data.labels().classNames(), data.normalization());
    BitopkClassificationModel fitted = new BitopkClassificationModel(uid, trained, result.output());
    copyValues(fitted, ParamMap.empty());
    fitted.setParent(this);
    return fitted;
  }

  /**
   * The workers' results cross the wire with Spark's configured serializer, and they are Kryo-serialized
   * objects; Spark's default Java serializer refuses them, deep inside the first round. Say so at once.
   */
  static void requireKryo(SparkConf conf) {
    String serializer = conf.get("spark.serializer", "org.apache.spark.serializer.JavaSerializer");
    if (!serializer.equals("org.apache.spark.serializer.KryoSerializer")) {
      throw new IllegalArgumentException("BitopkClassifier needs spark.serializer="
          + "org.apache.spark.serializer.KryoSerializer (this SparkContext has " + serializer + "); set it, and "
          + "spark.kryo.registrator=" + BitopkKryoRegistrator.class.getName() + ", when the session is created "
          + "(Zeppelin: the Spark interpreter's properties)");
    }
  }

  private ModelSpec model(JavaSparkContext sc) {
    try {
      return ModelChoice.parse(getModel(), sc.hadoopConfiguration());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("model: " + e.getMessage().replaceFirst("^--model:? ?", ""), e);
    }
  }

  private TrainingConfig config(String output, JavaSparkContext sc) {
    TrainingConfigBuilder b = TrainingConfig.builder()
        .table(TableInput.builder().dataFrame().features(getFeaturesCol()).label(getLabelCol())
            .inputShape(getInputShape()).testFraction(getTestFraction()).normalize(getNormalize())
            .featureScale(getFeatureScale()).build())
        .model(model(sc)).mode(Mode.parse(getMode()))
        .uplink(CompressorSpec.parse(getUplink())).downlink(CompressorSpec.parse(getDownlink()))
        .densityUp(getDensityUp()).densityDown(getDensityDown()).workers(getWorkers()).learningRate(getLr())
        .lrDecay(getLrDecay()).momentum(getMomentum()).epochs(getEpochs()).maxIterations(getMaxIterations())
        .batchSize(getBatchSize()).nonIid(getSplit().equals("non-iid")).seed(getSeed()).output(output)
        .overwrite(getOverwrite()).quiet(true);
    return b.build();
  }

  /**
   * StringIndexer (and other ML attributes) declare the number of classes in the column's metadata; empty when
   * it does not.
   */
  private OptionalInt declaredClasses(StructType schema) {
    var field = schema.apply(getLabelCol());
    if (!(field.dataType() instanceof org.apache.spark.sql.types.NumericType)) {
      return OptionalInt.empty();   // class names: indexed in sorted order, like the command line's string labels
    }
    Attribute attribute = Attribute.fromStructField(field);
    if (attribute instanceof NominalAttribute nominal && nominal.getNumValues().isDefined()) {
      return OptionalInt.of((Integer) nominal.getNumValues().get());
    }
    return OptionalInt.empty();
  }

  @Override
  public BitopkClassifier copy(ParamMap extra) {
    return defaultCopy(extra);
  }

  /** Spark ML persistence: {@code BitopkClassifier.load(path)} reads what {@code write().save(path)} wrote. */
  public static MLReader<BitopkClassifier> read() {
    return new DefaultParamsReader<>();
  }

  public static BitopkClassifier load(String path) {
    return read().load(path);
  }

  /** Keeps the master model of the last round. */
  private static final class FinalParameters implements RunListener {
    float[] parameters;

    @Override
    public void onFinish(RunSummary summary, DriverState state) {
      parameters = state.masterParameters();
    }
  }
}
