package org.bitopk.cli;

import java.util.ListResourceBundle;
import org.bitopk.compression.CompressorSpec;
import org.bitopk.job.problem.network.DatasetChoice;
import org.bitopk.job.problem.network.ModelArchitecture;

/**
 * The parts of {@code --help} that list choices, generated from their registries ({@link DatasetChoice},
 * {@link ModelArchitecture}, {@link CompressorSpec}) so that the help never lags behind what the job accepts.
 * {@link Main} hands it to picocli as the train command's resource bundle ({@code ${bundle:key}} in option
 * descriptions).
 */
public final class HelpTexts extends ListResourceBundle {
  @Override
  protected Object[][] getContents() {
    return new Object[][] {
        {"datasets", DatasetChoice.help()},
        {"models", ModelArchitecture.cliNames()},
        {"compressors", CompressorSpec.choices()},
    };
  }
}
