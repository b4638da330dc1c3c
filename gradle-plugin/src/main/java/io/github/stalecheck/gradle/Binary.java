package io.github.stalecheck.gradle;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.gradle.api.GradleException;
import org.gradle.api.logging.Logger;

/**
 * Finds and runs the {@code stalecheck} binary. Runs at execution time only and touches no
 * {@code Project} (configuration cache); starts the process with {@link ProcessBuilder} because
 * {@code Project.exec} is gone in Gradle 9.
 */
final class Binary {
    static final String ENV = "STALECHECK";
    static final String INSTALL =
            "Install it with Rust's cargo: `cargo install --git https://github.com/stalecheck/stalecheck stalecheck`"
                    + " (or `cargo install --path cli` in a checkout), then either put it on PATH,"
                    + " set the STALECHECK environment variable to its path,"
                    + " or set `stalecheck { executable = \"/path/to/stalecheck\" }` in the build script.";

    private Binary() {}

    /** The executable setting, else $STALECHECK, else `stalecheck` on PATH; a clear error if none. */
    static String locate(String configured) {
        if (configured != null && !configured.trim().isEmpty()) {
            return check(configured.trim(), "the `executable` setting of the stalecheck plugin");
        }
        String env = System.getenv(ENV);
        if (env != null && !env.trim().isEmpty()) {
            return check(env.trim(), "the " + ENV + " environment variable");
        }
        File found = onPath("stalecheck");
        if (found != null) {
            return found.getAbsolutePath();
        }
        throw new GradleException(
                "stalecheck: the `stalecheck` binary was not found (no `executable` setting, no "
                        + ENV + " environment variable, no `stalecheck` on PATH). " + INSTALL);
    }

    private static String check(String value, String origin) {
        boolean isPath = value.contains("/") || value.contains(File.separator);
        if (isPath) {
            File f = new File(value);
            if (!f.isFile()) {
                throw new GradleException("stalecheck: " + value + " (from " + origin + ") does not exist or is not a file. " + INSTALL);
            }
            if (!f.canExecute()) {
                throw new GradleException("stalecheck: " + value + " (from " + origin + ") is not executable.");
            }
            return f.getAbsolutePath();
        }
        File found = onPath(value);
        if (found == null) {
            throw new GradleException("stalecheck: `" + value + "` (from " + origin + ") was not found on PATH. " + INSTALL);
        }
        return found.getAbsolutePath();
    }

    private static File onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        boolean windows = File.pathSeparatorChar == ';';
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            for (String candidate : windows ? new String[] {name + ".exe", name} : new String[] {name}) {
                File f = new File(dir, candidate);
                if (f.isFile() && f.canExecute()) {
                    return f;
                }
            }
        }
        return null;
    }

    /** Runs the command in {@code workDir}, forwarding its output to the logger; returns the exit code. */
    static int run(List<String> command, File workDir, Logger logger) {
        logger.info("stalecheck: running {} (in {})", command, workDir);
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir).redirectErrorStream(true);
        try {
            Process process = pb.start();
            process.getOutputStream().close();
            try (BufferedReader reader =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    logger.lifecycle(line);
                }
            }
            return process.waitFor();
        } catch (IOException e) {
            throw new GradleException("stalecheck: could not run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GradleException("stalecheck: interrupted while running " + command.get(0), e);
        }
    }
}
