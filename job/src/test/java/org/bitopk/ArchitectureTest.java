package org.bitopk;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The layering the README describes, checked on the compiled classes: compression knows nothing of Spark,
 * datasets nothing of compression, the engine nothing of flags, settings, runs, checkpoints or outputs, the
 * settings nothing of running them, the job nothing of its command line or of the lab's research tooling, and
 * no two packages (the root ones included) depend on each other.
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
   * Inside the settings the arrows run one way: the flag names at the bottom, then the values (a table's, a run's),
   * the options that parse them, and the maps that read and write them on top. A class counts with its nested
   * classes, and a builder with the class it builds.
   */
  @Test
  void noArrowRunsBackUpInsideTheSettings() {
    slices().assignedFrom(new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        if (!c.getPackageName().equals("org.bitopk.job.config")) {
          return SliceIdentifier.ignore();
        }
        return SliceIdentifier.of(c.getName().replaceFirst("\\$.*", "").replaceFirst("Builder$", ""));
      }

      @Override
      public String getDescription() {
        return "the classes of org.bitopk.job.config";
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
}
