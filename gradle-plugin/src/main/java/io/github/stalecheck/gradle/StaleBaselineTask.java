package io.github.stalecheck.gradle;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.TaskAction;

/**
 * {@code staleBaseline}: writes (or refreshes) {@code stalecheck { baselineFile }} with the
 * current findings of the configured source sets, so that {@code staleCheck} fails only on new
 * ones. One {@code stalecheck baseline} run per source set (the same inputs {@code staleCheck}
 * scans), combined with {@code stalecheck merge} when there are several. Declares no outputs, so
 * it always runs (no {@code upToDateWhen} lambda: the configuration cache cannot store Java lambdas).
 */
public class StaleBaselineTask extends DefaultTask {
    private List<ScanSpec> specs = new ArrayList<>();
    private File rootDir;
    private File baselineFile;
    private File configFile;
    private List<String> rules = new ArrayList<>();
    private boolean openWorld;
    private String world;
    private String executable;
    private Scanner scanner;

    void configure(List<ScanSpec> specs, File rootDir, File baselineFile, File configFile, List<String> rules,
            boolean openWorld, String world, String executable) {
        this.specs = new ArrayList<>(specs);
        this.rootDir = rootDir;
        this.baselineFile = baselineFile;
        this.configFile = configFile;
        this.rules = rules == null ? new ArrayList<String>() : new ArrayList<>(rules);
        this.openWorld = openWorld;
        this.world = world;
        this.executable = executable;
    }

    void setScanner(Scanner scanner) {
        this.scanner = scanner;
    }

    @Internal
    public File getBaselineFile() {
        return baselineFile;
    }

    @Internal
    public List<String> getSourceSetNames() {
        List<String> names = new ArrayList<>();
        for (ScanSpec spec : specs) {
            names.add(spec.name);
        }
        return names;
    }

    @TaskAction
    public void writeBaseline() {
        if (baselineFile == null) {
            throw new GradleException("stalecheck: staleBaseline needs a baseline file: set "
                    + "`stalecheck { baselineFile = file(\"stalecheck-baseline.sarif\") }` in the build script.");
        }
        String binary = Binary.locate(executable, scanner, new File(getTemporaryDir(), "bin"), getLogger());
        List<String> parts = new ArrayList<>();
        for (ScanSpec spec : specs) {
            if (spec.classDirArgs().isEmpty()) {
                getLogger().info("stalecheck: source set '{}' has no classes; not in the baseline", spec.name);
                continue;
            }
            File part = new File(getTemporaryDir(), spec.name + ".sarif");
            List<String> command = new ArrayList<>();
            command.add(binary);
            command.add("baseline");
            command.addAll(spec.inputArgs(rootDir, new File(getTemporaryDir(), spec.name + "-classpath.txt")));
            command.addAll(ScanSpec.optionArgs(rules, openWorld, world, configFile));
            command.addAll(spec.cacheArgs(binary));
            command.add("--output");
            command.add(part.getAbsolutePath());
            int code = Binary.run(command, rootDir, getLogger());
            if (code != 0 || !part.isFile()) {
                throw new GradleException("stalecheck baseline failed with exit code " + code + " for source set '"
                        + spec.name + "' (see the output above). Command: " + command);
            }
            parts.add(part.getAbsolutePath());
        }
        if (parts.isEmpty()) {
            throw new GradleException("stalecheck: no classes to baseline in source sets " + getSourceSetNames()
                    + " (compile them first, or check `stalecheck { sourceSets = [...] }`).");
        }
        ScanSpec.write(baselineFile, "");
        if (parts.size() == 1) {
            try {
                Files.copy(new File(parts.get(0)).toPath(), baselineFile.toPath(), StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new GradleException("stalecheck: cannot write " + baselineFile + ": " + e.getMessage(), e);
            }
        } else {
            Merge.run(binary, parts, baselineFile, rootDir, getLogger());
        }
        getLogger().lifecycle("stalecheck: baseline of {} written to {}", getSourceSetNames(), baselineFile);
    }
}
