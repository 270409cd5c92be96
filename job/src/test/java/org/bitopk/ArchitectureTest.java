package org.bitopk;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The layering the README describes, checked on the compiled classes: compression knows nothing of Spark,
 * datasets nothing of compression, the engine nothing of flags, settings, runs, checkpoints or outputs, the
 * settings nothing of running them, the job nothing of its command line or of the lab's research tooling, and
 * no two packages (the root ones included) depend on each other, nor two classes of one package. A value that may be
 * null says so in its type.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArchitectureTest {
  private JavaClasses classes;

  @BeforeAll
  void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.bitopk");
  }

  @Test
  void compressionKnowsNothingOfSparkNorOfTheOtherModules() {
    noClasses().that().resideInAPackage("org.bitopk.compression..")
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.spark..", "org.bitopk.datasets..",
            "org.bitopk.job..", "org.bitopk.cli..", "org.bitopk.lab..", "org.bitopk.ml..")
        .check(classes);
  }

  @Test
  void datasetsKnowNothingOfCompressionNorTheJob() {
    noClasses().that().resideInAPackage("org.bitopk.datasets..")
        .should().dependOnClassesThat().resideInAnyPackage("org.bitopk.compression..", "org.bitopk.job..",
            "org.bitopk.cli..", "org.bitopk.lab..", "org.bitopk.ml..")
        .check(classes);
  }

  @Test
  void theEngineTakesAPlanNotFlagsAndNeverWritesOutputs() {
    noClasses().that().resideInAPackage("org.bitopk.job.engine..")
        .should().dependOnClassesThat().resideInAnyPackage("org.bitopk.job", "org.bitopk.job.config..",
            "org.bitopk.job.run..", "org.bitopk.job.checkpoint..", "org.bitopk.job.output..",
            "org.bitopk.job.report..", "org.bitopk.cli..", "org.bitopk.lab..", "org.bitopk.ml..")
        .check(classes);
  }

  @Test
  void theSettingsKnowNothingOfRunningThem() {
    noClasses().that().resideInAPackage("org.bitopk.job.config..")
        .should().dependOnClassesThat().resideInAnyPackage("org.bitopk.job.run..", "org.bitopk.cli..",
            "org.bitopk.lab..", "org.bitopk.ml..")
        .check(classes);
  }

  /**
   * The settings are values: they read no table and start no Spark (opening a table is {@code table}'s, the Hadoop
   * settings a model file or a config file is read with are passed in).
   */
  @Test
  void theSettingsNeitherOpenTablesNorReachForSpark() {
    noClasses().that().resideInAPackage("org.bitopk.job.config..")
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.spark..", "org.bitopk.job.spark..")
        .check(classes);
  }

  /**
   * Inside a package the arrows between classes run one way (in the settings, say: the flag names at the bottom,
   * then the values, the options that parse them, and the maps that read and write them on top). A class counts
   * with its nested classes, and a builder with the class it builds. As no two packages depend on each other, a
   * cycle of classes can only run inside one package.
   */
  @Test
  void noArrowRunsBackUpInsideAPackage() {
    slices().assignedFrom(new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        if (!c.getPackageName().startsWith("org.bitopk.")) {
          return SliceIdentifier.ignore();
        }
        return SliceIdentifier.of(c.getName().replaceFirst("\\$.*", "").replaceFirst("Builder$", ""));
      }

      @Override
      public String getDescription() {
        return "the classes of each package of org.bitopk";
      }
    }).should().beFreeOfCycles().check(classes);
  }

  @Test
  void theJobKnowsNothingOfItsCommandLineNorOfTheLab() {
    noClasses().that().resideInAPackage("org.bitopk.job..")
        .should().dependOnClassesThat().resideInAnyPackage("org.bitopk.cli..", "org.bitopk.lab..", "org.bitopk.ml..")
        .check(classes);
  }

  @Test
  void onlyTheCommandLineUsesTheLab() {
    noClasses().that().resideOutsideOfPackages("org.bitopk.lab..", "org.bitopk.cli..")
        .should().dependOnClassesThat().resideInAPackage("org.bitopk.lab..")
        .check(classes);
  }

  @Test
  void theSharedProblemKnowsNeitherNetworksNorQuadraticsNorSyntheticGradients() {
    noClasses().that().resideInAPackage("org.bitopk.job.problem")
        .should().dependOnClassesThat().resideInAnyPackage("org.bitopk.job.problem.network..",
            "org.bitopk.job.problem.quadratic..", "org.bitopk.job.problem.synthetic..")
        .check(classes);
  }

  /** Every package is its own slice, the root packages ({@code org.bitopk.job}, {@code org.bitopk.cli}) included. */
  @Test
  void noTwoPackagesDependOnEachOther() {
    slices().matching("org.bitopk.(**)").should().beFreeOfCycles().check(classes);
  }

  /**
   * No test hook in the production code: no class named for tests, and no static field that is not final (a switch
   * a test could flip for every run in the JVM) beyond the process-wide state that has no other home: the installed
   * driver log, Ctrl-C handling, and each executor JVM's cache of its training set. Tests inject faults through the
   * engine's {@code FaultInjector} instead.
   */
  @Test
  void productionCodeHoldsNoTestHooks() {
    // named for tests (TestFaults, TestHooks, ...ForTests), or reaching for a test library; a "TestBlock" of the test
    // set is production's own word
    noClasses().should().haveNameMatching(".*[.$](Test(Faults?|Hooks?|Support|Utils?)|[A-Za-z]*ForTests?)")
        .orShould().dependOnClassesThat().resideInAnyPackage("org.junit..", "org.mockito..")
        .check(classes);
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields().that().areStatic()
        .and().areDeclaredInClassesThat().resideInAPackage("org.bitopk..")
        .and().doNotHaveFullName("org.bitopk.job.output.DriverLog.installed")
        .and().areNotDeclaredIn(org.bitopk.cli.Interruption.class)
        .and().areDeclaredInClassesThat().doNotHaveFullyQualifiedName(
            "org.bitopk.job.problem.network.ExecutorShards$TrainingSets")
        .should().beFinal().check(classes);
  }

  /**
   * Absence is a type of its own (an Optional, an overload, a variant); where a null must remain (a serialised or
   * binary format, a hot loop, a setting read as it is given), its declaration carries JSpecify's {@code @Nullable},
   * so javadoc that lets a parameter, a return, a field or a record component be null without it fails here.
   */
  @Test
  void whatMayBeNullIsDeclaredNullable() throws IOException {
    Path root = UndeclaredNulls.repositoryRoot();
    List<Path> sources = UndeclaredNulls.mainSources(root);
    for (String module : List.of("compression", "datasets", "job")) {
      assertTrue(sources.contains(root.resolve(module).resolve("src/main/java")), module + " in " + sources);
    }
    assertEquals(List.of(), UndeclaredNulls.in(root, sources));
  }

  /** The check above finds each kind of undeclared null in a sample, and none once the sample declares them. */
  @Test
  void theNullableCheckFindsUndeclaredNulls() throws IOException {
    String undeclared = """
        package sample;

        import java.util.List;

        /** @param holder the executor holding it, or null (none yet) */
        record Where(String holder, List<String> alive) {}

        class Sample {
          /** The cached value, null when nothing was read yet. */
          String cache;

          /** The name, or null when there is none. */
          String name() { return cache; }

          /**
           * @param rounded the rounded values, or null to compute them
           * @return the values (never null)
           */
          float[] values(float[] rounded) { return rounded; }

          /** Reads {@code chart}, the name of the chart it must hold or null. */
          void read(String chart) {}

          /** Not null: the whole list. */
          List<String> all() { return List.of(); }
        }
        """;
    assertEquals(List.of("/Sample.java: record Where component holder", "/Sample.java: field cache",
        "/Sample.java: method name return", "/Sample.java: method values parameter rounded",
        "/Sample.java: method read (its text names a null, none of its parameters may be)"),
        UndeclaredNulls.inSource("Sample.java", undeclared));

    String declared = undeclared
        .replace("import java.util.List;", "import java.util.List;\nimport org.jspecify.annotations.Nullable;")
        .replace("record Where(String holder", "record Where(@Nullable String holder")
        .replace("String cache;", "@Nullable String cache;")
        .replace("String name()", "@Nullable String name()")
        .replace("float[] rounded", "float @Nullable [] rounded")
        .replace("void read(String chart)", "void read(@Nullable String chart)");
    assertEquals(List.of(), UndeclaredNulls.inSource("Sample.java", declared));

    // another library's @Nullable is not the one the build means
    assertEquals(List.of("/Sample.java: field cache"), UndeclaredNulls.inSource("Sample.java", """
        package sample;

        import javax.annotation.Nullable;

        class Sample {
          /** The cached value, or null. */
          @Nullable String cache;
        }
        """));
  }
}
