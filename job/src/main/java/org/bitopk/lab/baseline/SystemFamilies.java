package org.bitopk.lab.baseline;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import org.apache.spark.SparkConf;

/** The system families this build has (found by {@link ServiceLoader}), and what a name no family has means. */
final class SystemFamilies {
  /** DL4J's Spark masters: their DL4J module exists for Scala 2.12 only, so only the Spark 3.5 build has them. */
  static final String DL4J_MASTERS_BUILD = "the Spark 3.5 build (bitopk_2.12: mvn -B -Pspark-3.5 -pl "
      + "job/dl4j-baselines -am package -DskipTests; from the sources: submit/run-local.sh --spark-3.5)";

  private final List<SystemFamily> families;

  SystemFamilies(List<SystemFamily> families) {
    this.families = List.copyOf(families);
  }

  /** The families on the class path, the job's own first. */
  static SystemFamilies installed() {
    List<SystemFamily> found = new ArrayList<>();
    ServiceLoader.load(SystemFamily.class, SystemFamilies.class.getClassLoader()).forEach(found::add);
    found.sort((a, b) -> Boolean.compare(!(a instanceof BitopkSystems), !(b instanceof BitopkSystems)));
    return new SystemFamilies(found);
  }

  /** Every family's default systems, the job's own first. */
  List<String> defaultSystems() {
    List<String> all = new ArrayList<>();
    families.forEach(family -> all.addAll(family.defaults()));
    return all;
  }

  /** The systems a {@code --systems} list names, each once, in its order. */
  List<ComparedSystem> parse(List<String> names) {
    if (names == null || names.isEmpty()) {
      throw new IllegalArgumentException("--systems: expected at least one system");
    }
    Set<String> seen = new LinkedHashSet<>();
    List<ComparedSystem> chosen = new ArrayList<>();
    for (String raw : names) {
      String name = raw.trim().toLowerCase(Locale.ROOT);
      ComparedSystem system = parse(name);
      // by the parsed name, so that -rho-0.001 and -rho-0.0010 are the same system (and run directory)
      if (!seen.add(system.name())) {
        throw new IllegalArgumentException("--systems: '" + name + "' is listed twice");
      }
      chosen.add(system);
    }
    return chosen;
  }

  private ComparedSystem parse(String name) {
    for (SystemFamily family : families) {
      Optional<ComparedSystem> system = family.parse(name);
      if (system.isPresent()) {
        return system.get();
      }
    }
    if (name.equals("shared") || name.matches("patm-[1-9][0-9]{0,5}")) {
      throw new IllegalArgumentException("--systems: '" + name + "' is one of DL4J's Spark masters, which only "
          + DL4J_MASTERS_BUILD + " has; this build is for Spark " + org.apache.spark.package$.MODULE$.SPARK_VERSION()
          + " (Scala " + scala.util.Properties.versionNumberString() + ")");
    }
    List<String> known = new ArrayList<>();
    families.forEach(family -> known.add(family.names()));
    throw new IllegalArgumentException("--systems: unknown system '" + name + "'; expected "
        + String.join(", ", known));
  }

  /** The Spark configuration a comparison of {@code chosen} runs with: each family's settings in turn. */
  SparkConf configure(SparkConf conf, List<ComparedSystem> chosen) {
    SparkConf configured = conf;
    for (SystemFamily family : families) {
      configured = family.configure(configured, chosen);
    }
    return configured;
  }
}
