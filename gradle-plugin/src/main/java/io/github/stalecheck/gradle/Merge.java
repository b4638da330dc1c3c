package io.github.stalecheck.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.gradle.api.GradleException;
import org.gradle.api.logging.Logger;

/** {@code stalecheck merge A.sarif B.sarif... --output ALL.sarif}. */
final class Merge {
    private Merge() {}

    static void run(String binary, List<String> inputs, File output, File workDir, Logger logger) {
        List<String> command = new ArrayList<>();
        command.add(binary);
        command.add("merge");
        command.addAll(inputs);
        command.add("--output");
        command.add(output.getAbsolutePath());
        int code = Binary.run(command, workDir, logger);
        if (code != 0 || !output.isFile()) {
            throw new GradleException("stalecheck merge failed with exit code " + code
                    + " (see the output above; `merge` needs a stalecheck binary with the reporting subcommands). Command: "
                    + command);
        }
    }
}
