package io.github.stalecheck.gradle;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.gradle.api.GradleException;
import org.gradle.api.file.FileCollection;

/**
 * What one source set gives the scanner: its class directories (scanned), its compile classpath
 * (context only) and its source directories (for source paths). Holds only file collections and
 * strings, so it is safe to keep in a task under the configuration cache.
 */
final class ScanSpec {
    final String name;
    final FileCollection classesDirs;
    final FileCollection classpath;
    final FileCollection sourceDirs;
    /**
     * The source directories of every other project's main source set (set once all projects are
     * evaluated): classes of another project on the classpath get locations in their real files.
     */
    List<File> otherSourceDirs = new ArrayList<>();

    /**
     * The scanner's summary cache directory ({@code --cache}), or null for none ({@code --no-cache});
     * set by the plugin after the project is evaluated. Not an input of any task: the findings are
     * the same bytes with or without the cache.
     */
    File cacheDir;

    ScanSpec(String name, FileCollection classesDirs, FileCollection classpath, FileCollection sourceDirs) {
        this.name = name;
        this.classesDirs = classesDirs;
        this.classpath = classpath;
        this.sourceDirs = sourceDirs;
    }

    /** Class directories that exist (a source set without classes has none). */
    List<String> classDirArgs() {
        List<String> out = new ArrayList<>();
        for (File f : classesDirs.getFiles()) {
            if (f.exists()) {
                out.add(f.getAbsolutePath());
            }
        }
        return out;
    }

    /**
     * Source directories that exist, relative to {@code rootDir} when inside it (SARIF paths are
     * then relative to the repository root, what GitHub code scanning resolves), else absolute.
     */
    List<String> sourceRoots(File rootDir) {
        List<String> out = new ArrayList<>();
        List<File> dirs = new ArrayList<>(sourceDirs.getFiles());
        dirs.addAll(otherSourceDirs);
        for (File dir : dirs) {
            String root = relative(rootDir, dir);
            if (dir.isDirectory() && !out.contains(root)) {
                out.add(root);
            }
        }
        return out;
    }

    static String relative(File rootDir, File file) {
        try {
            java.nio.file.Path root = rootDir.getCanonicalFile().toPath();
            java.nio.file.Path path = file.getCanonicalFile().toPath();
            if (path.startsWith(root) && !path.equals(root)) {
                return root.relativize(path).toString().replace(File.separatorChar, '/');
            }
            return path.toString();
        } catch (IOException e) {
            return file.getAbsolutePath();
        }
    }

    /**
     * The scan arguments for this source set: class directories, {@code --classpath @argfile}
     * (written to {@code argFile}, one entry a line, so long classpaths work) and
     * {@code --source-root}s.
     */
    List<String> inputArgs(File rootDir, File argFile) {
        List<String> args = new ArrayList<>(classDirArgs());
        List<String> entries = new ArrayList<>();
        for (File f : classpath.getFiles()) {
            if (f.exists()) {
                entries.add(f.getAbsolutePath());
            }
        }
        if (!entries.isEmpty()) {
            write(argFile, String.join("\n", entries) + "\n");
            args.add("--classpath");
            args.add("@" + argFile.getAbsolutePath());
        }
        for (String root : sourceRoots(rootDir)) {
            args.add("--source-root");
            args.add(root);
        }
        return args;
    }

    /**
     * {@code --cache DIR} (or {@code --no-cache}) when the binary has the summary cache; nothing for
     * an older binary given as {@code executable}.
     */
    List<String> cacheArgs(String binary) {
        List<String> args = new ArrayList<>();
        if (!Binary.supports(binary, "--cache")) {
            return args;
        }
        if (cacheDir == null) {
            args.add("--no-cache");
        } else {
            args.add("--cache");
            args.add(cacheDir.getAbsolutePath());
        }
        return args;
    }

    /** The options every scan shares. */
    static List<String> optionArgs(List<String> rules, boolean openWorld, String world, File configFile) {
        List<String> args = new ArrayList<>();
        if (rules != null && !rules.isEmpty()) {
            args.add("--rules");
            args.add(String.join(",", rules));
        }
        if (world != null) {
            args.add("--world");
            args.add(world);
        } else if (openWorld) {
            args.add("--open-world");
        }
        if (configFile != null) {
            args.add("--config");
            args.add(configFile.getAbsolutePath());
        }
        args.add("--no-progress");
        return args;
    }

    static void write(File file, String text) {
        try {
            File parent = file.getParentFile();
            if (parent != null) {
                Files.createDirectories(parent.toPath());
            }
            Files.write(file.toPath(), text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new GradleException("stalecheck: cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
