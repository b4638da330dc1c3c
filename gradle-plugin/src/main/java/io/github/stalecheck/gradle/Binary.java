package io.github.stalecheck.gradle;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.gradle.api.GradleException;
import org.gradle.api.logging.Logger;

/**
 * Finds and runs the {@code stalecheck} binary. Runs at execution time only and touches no
 * {@code Project} (configuration cache); starts the process with {@link ProcessBuilder} because
 * {@code Project.exec} is gone in Gradle 9.
 */
final class Binary {
    static final String ENV = "STALECHECK";
    static final String OVERRIDE =
            "or point the plugin at a binary: `stalecheck { executable = \"/path/to/stalecheck\" }` in the build script,"
                    + " or the STALECHECK environment variable (a binary built with Rust's cargo:"
                    + " `cargo install --path cli` in a checkout of stalecheck).";
    static final String INSTALL = "Fix the path, " + OVERRIDE;

    private Binary() {}

    /**
     * The binary to run: the {@code executable} setting, else {@code $STALECHECK}, else the
     * scanner artifact resolved from the build's repositories ({@link Scanner}, copied to
     * {@code exeDir} and made executable), else {@code stalecheck} on PATH; a clear error naming
     * the coordinates and the overrides if none is found.
     */
    static String locate(String configured, Scanner scanner, File exeDir, Logger logger) {
        if (configured != null && !configured.trim().isEmpty()) {
            return check(configured.trim(), "the `executable` setting of the stalecheck plugin");
        }
        String env = System.getenv(ENV);
        if (env != null && !env.trim().isEmpty()) {
            return check(env.trim(), "the " + ENV + " environment variable");
        }
        String failure;
        if (scanner == null || scanner.coordinates == null) {
            failure = "no stalecheck binary is published for this platform (" + System.getProperty("os.name") + ", "
                    + System.getProperty("os.arch") + ")";
        } else if (scanner.files == null) {
            failure = "the scanner artifact was not looked up";
        } else {
            try {
                Set<File> files = scanner.files.getFiles();
                if (files.size() == 1) {
                    return install(files.iterator().next(), exeDir, scanner.coordinates, logger);
                }
                failure = "resolving it gave " + files;
            } catch (RuntimeException e) {
                failure = messages(e);
            }
        }
        File found = onPath("stalecheck");
        if (found != null) {
            logger.info("stalecheck: {}; using {} from PATH", failure, found);
            return found.getAbsolutePath();
        }
        String coordinates = scanner == null || scanner.coordinates == null ? "" : " " + scanner.coordinates;
        throw new GradleException("stalecheck: the scanner binary" + coordinates
                + " could not be resolved from the build's repositories: " + failure + ". Add the Maven repository"
                + " that holds it to the project's repositories (`repositories { maven { url = uri(\"...\") } }`;"
                + " packaging/publish-binary.sh of the stalecheck repository makes one), " + OVERRIDE);
    }

    /** The resolved artifact, copied under {@code exeDir} as an executable (the cache's copy has no exec bit). */
    private static String install(File artifact, File exeDir, String coordinates, Logger logger) {
        boolean windows = File.pathSeparatorChar == ';';
        File exe = new File(exeDir, windows ? "stalecheck.exe" : "stalecheck");
        try {
            if (!(exe.isFile() && exe.length() == artifact.length() && exe.lastModified() == artifact.lastModified()
                    && exe.canExecute())) {
                Files.createDirectories(exeDir.toPath());
                Files.copy(artifact.toPath(), exe.toPath(), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.COPY_ATTRIBUTES);
                if (!exe.setExecutable(true)) {
                    throw new GradleException("stalecheck: cannot make " + exe + " executable");
                }
            }
        } catch (IOException e) {
            throw new GradleException("stalecheck: cannot copy " + artifact + " to " + exe + ": " + e.getMessage(), e);
        }
        logger.info("stalecheck: using {} ({})", coordinates, artifact);
        return exe.getAbsolutePath();
    }

    private static String messages(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null && out.length() < 2000; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && out.indexOf(m) < 0) {
                out.append(out.length() == 0 ? "" : " ").append(m.trim());
            }
        }
        return out.length() == 0 ? e.toString() : out.toString();
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
                    relay(logger, line);
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

    /**
     * One line of the binary's output into the build log. With {@code --console gradle} findings
     * come as {@code path:line: warning: message [rule]}: those at warn (shown even with
     * {@code -q}), everything else (hints, the summary) at lifecycle, so they all show by default.
     */
    static void relay(Logger logger, String line) {
        if (line.contains(": warning: ") || line.contains(": error: ")) {
            logger.warn(line);
        } else {
            logger.lifecycle(line);
        }
    }

    private static final Map<String, Boolean> FLAGS = new ConcurrentHashMap<>();

    /** Whether this binary has {@code scan --console} (an older one, given as executable, has not). */
    static boolean supportsConsole(String binary) {
        return supports(binary, "--console");
    }

    /** Whether this binary has {@code scan --html} (writes the HTML report beside the SARIF file). */
    static boolean supportsHtml(String binary) {
        return supports(binary, "--html");
    }

    /** Whether {@code scan --help} of this binary names {@code flag}. */
    static boolean supports(String binary, String flag) {
        File f = new File(binary);
        String key = f.getAbsolutePath() + "|" + f.length() + "|" + f.lastModified() + "|" + flag;
        Boolean known = FLAGS.get(key);
        if (known != null) {
            return known;
        }
        boolean has = false;
        try {
            Process process = new ProcessBuilder(binary, "scan", "--help").redirectErrorStream(true).start();
            process.getOutputStream().close();
            try (BufferedReader reader =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    has |= line.contains(flag + " ") || line.trim().equals(flag);
                }
            }
            process.waitFor();
        } catch (IOException e) {
            has = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        FLAGS.put(key, has);
        return has;
    }
}
