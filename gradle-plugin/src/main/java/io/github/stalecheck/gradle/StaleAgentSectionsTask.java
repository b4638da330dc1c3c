package io.github.stalecheck.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.tasks.TaskAction;

/**
 * {@code staleAgentSections}: writes the main source set's atomic sections for the run-time agent
 * ({@code stalecheck scan --sections}, {@code build/stalecheck/sections.json}). Runs before the
 * test tasks when {@code stalecheck { agent { } }} is there.
 */
public class StaleAgentSectionsTask extends DefaultTask {
    private ScanSpec spec;
    private File rootDir;
    private File sectionsFile;
    private String executable;
    private Scanner scanner;

    void configure(ScanSpec spec, File rootDir, File sectionsFile, String executable, Scanner scanner) {
        this.spec = spec;
        this.rootDir = rootDir;
        this.sectionsFile = sectionsFile;
        this.executable = executable;
        this.scanner = scanner;
    }

    ScanSpec spec() {
        return spec;
    }

    File sectionsFile() {
        return sectionsFile;
    }

    @TaskAction
    public void write() {
        String binary = Binary.locate(executable, scanner, new File(getTemporaryDir(), "bin"), getLogger());
        List<String> command = new ArrayList<>();
        command.add(binary);
        command.add("scan");
        command.addAll(spec.inputArgs(rootDir, new File(getTemporaryDir(), "classpath.txt")));
        command.addAll(spec.cacheArgs(binary));
        command.add("--format");
        command.add("json");
        command.add("--output");
        command.add(new File(getTemporaryDir(), "scan.json").getAbsolutePath());
        command.add("--fail-on");
        command.add("none");
        command.add("--sections");
        command.add(sectionsFile.getAbsolutePath());
        File dir = sectionsFile.getParentFile();
        if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
            throw new GradleException("stalecheck: cannot create " + dir);
        }
        int code = Binary.run(command, rootDir, getLogger());
        if (code != 0 || !sectionsFile.isFile()) {
            throw new GradleException("stalecheck: the scan for the agent's sections exited with code " + code
                    + ". Command: " + command);
        }
    }
}
