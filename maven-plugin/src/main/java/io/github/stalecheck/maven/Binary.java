package io.github.stalecheck.maven;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.logging.Log;

/** Finds and runs the {@code stalecheck} binary. */
final class Binary {
    static final String ENV = "STALECHECK";
    static final String INSTALL =
            "Install it with Rust's cargo: `cargo install --git https://github.com/stalecheck/stalecheck stalecheck`"
                    + " (or `cargo install --path cli` in a checkout), then either put it on PATH,"
                    + " set the STALECHECK environment variable to its path,"
                    + " or set <executable>/path/to/stalecheck</executable> (-Dstalecheck.executable=...) in the plugin configuration.";

    private Binary() {}

    /** The executable parameter, else $STALECHECK, else `stalecheck` on PATH; a clear error if none. */
    static String locate(String configured, File baseDir) throws MojoExecutionException {
        if (configured != null && !configured.trim().isEmpty()) {
            return check(configured.trim(), "the executable parameter (stalecheck.executable)", baseDir);
        }
        String env = System.getenv(ENV);
        if (env != null && !env.trim().isEmpty()) {
            return check(env.trim(), "the " + ENV + " environment variable", null);
        }
        File found = onPath("stalecheck");
        if (found != null) {
            return found.getAbsolutePath();
        }
        throw new MojoExecutionException("stalecheck: the `stalecheck` binary was not found (no executable parameter, no "
                + ENV + " environment variable, no `stalecheck` on PATH). " + INSTALL);
    }

    private static String check(String value, String origin, File baseDir) throws MojoExecutionException {
        if (value.contains("/") || value.contains(File.separator)) {
            File f = new File(value);
            if (!f.isAbsolute() && baseDir != null) {
                f = new File(baseDir, value);
            }
            if (!f.isFile()) {
                throw new MojoExecutionException(
                        "stalecheck: " + f + " (from " + origin + ") does not exist or is not a file. " + INSTALL);
            }
            if (!f.canExecute()) {
                throw new MojoExecutionException("stalecheck: " + f + " (from " + origin + ") is not executable.");
            }
            return f.getAbsolutePath();
        }
        File found = onPath(value);
        if (found == null) {
            throw new MojoExecutionException(
                    "stalecheck: `" + value + "` (from " + origin + ") was not found on PATH. " + INSTALL);
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

    /** Runs the command in {@code workDir}, forwarding its output to the log; returns the exit code. */
    static int run(List<String> command, File workDir, Log log) throws MojoExecutionException {
        if (log.isDebugEnabled()) {
            log.debug("stalecheck: running " + command + " in " + workDir);
        }
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir).redirectErrorStream(true);
        try {
            Process process = pb.start();
            process.getOutputStream().close();
            try (BufferedReader reader =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    log.info(line);
                }
            }
            return process.waitFor();
        } catch (IOException e) {
            throw new MojoExecutionException("stalecheck: could not run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MojoExecutionException("stalecheck: interrupted while running " + command.get(0), e);
        }
    }
}
