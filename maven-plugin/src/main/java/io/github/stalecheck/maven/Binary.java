package io.github.stalecheck.maven;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.logging.Log;

/** Finds and runs the {@code stalecheck} binary. */
final class Binary {
    static final String ENV = "STALECHECK";
    static final String OVERRIDE =
            "or point the plugin at a binary: <executable>/path/to/stalecheck</executable> in the plugin configuration"
                    + " (-Dstalecheck.executable=...), or the STALECHECK environment variable (a binary built with"
                    + " Rust's cargo: `cargo install --path cli` in a checkout of stalecheck).";
    static final String INSTALL = "Fix the path, " + OVERRIDE;

    /** Resolves the scanner artifact; returns its file or throws with the reason. */
    interface Resolver {
        File resolve(String group, String artifact, String classifier, String extension, String version)
                throws Exception;
    }

    private Binary() {}

    /**
     * The binary to run: the executable parameter, else {@code $STALECHECK}, else the scanner
     * artifact {@code io.github.stalecheck:stalecheck-cli:VERSION:CLASSIFIER:exe} resolved from
     * the project's repositories (copied to {@code exeDir} and made executable), else
     * {@code stalecheck} on PATH; a clear error naming the coordinates and the overrides.
     */
    static String locate(String configured, File baseDir, Resolver resolver, String version, File exeDir, Log log)
            throws MojoExecutionException {
        if (configured != null && !configured.trim().isEmpty()) {
            return check(configured.trim(), "the executable parameter (stalecheck.executable)", baseDir);
        }
        String env = System.getenv(ENV);
        if (env != null && !env.trim().isEmpty()) {
            return check(env.trim(), "the " + ENV + " environment variable", null);
        }
        String classifier = Platform.classifier();
        String coordinates = classifier == null ? null
                : Platform.GROUP + ":" + Platform.ARTIFACT + ":exe:" + classifier + ":" + version;
        String failure;
        if (coordinates == null) {
            failure = "no stalecheck binary is published for this platform (" + System.getProperty("os.name") + ", "
                    + System.getProperty("os.arch") + ")";
        } else {
            try {
                File artifact = resolver.resolve(Platform.GROUP, Platform.ARTIFACT, classifier, "exe", version);
                return install(artifact, exeDir, coordinates, log);
            } catch (MojoExecutionException e) {
                throw e;
            } catch (Exception e) {
                failure = messages(e);
            }
        }
        File found = onPath("stalecheck");
        if (found != null) {
            log.info("stalecheck: " + failure + "; using " + found + " from PATH");
            return found.getAbsolutePath();
        }
        throw new MojoExecutionException("stalecheck: the scanner binary" + (coordinates == null ? "" : " " + coordinates)
                + " could not be resolved from the project's repositories: " + failure + ". Add the Maven repository that"
                + " holds it to the project's <repositories> (packaging/publish-binary.sh of the stalecheck repository"
                + " makes one), " + OVERRIDE);
    }

    /** The resolved artifact, copied under {@code exeDir} as an executable (the local repository's copy has no exec bit). */
    private static String install(File artifact, File exeDir, String coordinates, Log log) throws MojoExecutionException {
        boolean windows = File.pathSeparatorChar == ';';
        File exe = new File(exeDir, windows ? "stalecheck.exe" : "stalecheck");
        try {
            if (!(exe.isFile() && exe.length() == artifact.length() && exe.lastModified() == artifact.lastModified()
                    && exe.canExecute())) {
                Files.createDirectories(exeDir.toPath());
                Files.copy(artifact.toPath(), exe.toPath(), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.COPY_ATTRIBUTES);
                if (!exe.setExecutable(true)) {
                    throw new MojoExecutionException("stalecheck: cannot make " + exe + " executable");
                }
            }
        } catch (IOException e) {
            throw new MojoExecutionException("stalecheck: cannot copy " + artifact + " to " + exe + ": " + e.getMessage(), e);
        }
        if (log.isDebugEnabled()) {
            log.debug("stalecheck: using " + coordinates + " (" + artifact + ")");
        }
        return exe.getAbsolutePath();
    }

    private static String messages(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null && out.length() < 2000; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && out.indexOf(m.trim()) < 0) {
                out.append(out.length() == 0 ? "" : " ").append(m.trim());
            }
        }
        return out.length() == 0 ? e.toString() : out.toString();
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
                    relay(log, line);
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

    /**
     * One line of the binary's output into the build log. With {@code --console maven} a line
     * starts with its level word: {@code error:} at error, {@code warning:} at warn,
     * {@code note:} and {@code info:} at info, the word stripped (Maven prints its own
     * {@code [ERROR]}/{@code [WARNING]}); any other line at info.
     */
    static void relay(Log log, String line) {
        if (line.startsWith("error: ")) {
            log.error(line.substring("error: ".length()));
        } else if (line.startsWith("warning: ")) {
            log.warn(line.substring("warning: ".length()));
        } else if (line.startsWith("note: ")) {
            log.info(line.substring("note: ".length()));
        } else if (line.startsWith("info: ")) {
            log.info(line.substring("info: ".length()));
        } else {
            log.info(line);
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
