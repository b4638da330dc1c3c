package io.github.stalecheck.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.file.FileCollection;
import org.gradle.api.file.FileTree;
import org.gradle.api.tasks.CacheableTask;
import org.gradle.api.tasks.Classpath;
import org.gradle.api.tasks.Input;
import org.gradle.api.tasks.InputFile;
import org.gradle.api.tasks.InputFiles;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.Optional;
import org.gradle.api.tasks.OutputFile;
import org.gradle.api.tasks.PathSensitive;
import org.gradle.api.tasks.PathSensitivity;
import org.gradle.api.tasks.SkipWhenEmpty;
import org.gradle.api.tasks.TaskAction;

/**
 * {@code staleCheck<SourceSet>}: scans one source set's classes and writes
 * {@code build/reports/stalecheck/<sourceSet>.sarif}. Fails the build when the binary reports
 * findings at or above {@code failOn} (new ones only, with a baseline), unless
 * {@code ignoreFailures} is set or the root project's {@code staleCheckReport} will fail it after
 * merging (then the failure is recorded in {@link #getStatusFile()}).
 *
 * <p>Every property is a plain field set at configuration time; the action reads only fields
 * (configuration cache).
 */
@CacheableTask
public class StaleCheckTask extends DefaultTask {
    static final String FINDINGS = "findings";
    static final String CLEAN = "clean";

    private ScanSpec spec;
    private File rootDir;
    private File reportFile;
    private File htmlReportFile;
    private File statusFile;
    private File configFile;
    private File baselineFile;
    private String failOn;
    private List<String> rules = new ArrayList<>();
    private boolean openWorld;
    private String world;
    private boolean ignoreFailures;
    private boolean deferFailures;
    private String executable;
    private boolean aggregated;
    private Scanner scanner;
    private String baselineTask = StaleCheckPlugin.BASELINE;
    private final List<File> agentReports = new ArrayList<>();

    /** The run-time agent's reports (of the test tasks) to mark confirmations from, when they exist. */
    @Internal
    public List<File> getAgentReports() {
        return agentReports;
    }

    void addAgentReport(File report) {
        agentReports.add(report);
    }

    void init(ScanSpec spec, File rootDir, File reportFile, File statusFile) {
        this.spec = spec;
        this.rootDir = rootDir;
        this.reportFile = reportFile;
        this.statusFile = statusFile;
    }

    ScanSpec spec() {
        return spec;
    }

    /** Whether the aggregate {@code staleCheck} (and so {@code staleCheckReport}) includes this task. */
    @Internal
    public boolean isAggregated() {
        return aggregated;
    }

    void setAggregated(boolean aggregated) {
        this.aggregated = aggregated;
    }

    @Input
    public String getSourceSetName() {
        return spec.name;
    }

    /** The class files scanned (the task is NO-SOURCE without any). */
    @InputFiles
    @SkipWhenEmpty
    @PathSensitive(PathSensitivity.RELATIVE)
    public FileTree getClassFiles() {
        return spec.classesDirs.getAsFileTree();
    }

    @Internal
    public FileCollection getClassesDirs() {
        return spec.classesDirs;
    }

    /** Dependencies: context for the analyses, never reported. */
    @Classpath
    public FileCollection getClasspath() {
        return spec.classpath;
    }

    /** The source files: SARIF locations and messages point into them. */
    @InputFiles
    @PathSensitive(PathSensitivity.RELATIVE)
    public FileTree getSources() {
        return spec.sourceDirs.getAsFileTree();
    }

    /** Source roots as passed to the binary, relative to the root project directory. */
    @Input
    public List<String> getSourceRoots() {
        return spec.sourceRoots(rootDir);
    }

    @Internal
    public File getRootDir() {
        return rootDir;
    }

    @OutputFile
    public File getReportFile() {
        return reportFile;
    }

    public void setReportFile(File reportFile) {
        this.reportFile = reportFile;
    }

    /** The HTML report written beside the SARIF file; unset, none is written. */
    @OutputFile
    @Optional
    public File getHtmlReportFile() {
        return htmlReportFile;
    }

    public void setHtmlReportFile(File htmlReportFile) {
        this.htmlReportFile = htmlReportFile;
    }

    /** {@code findings} or {@code clean}: whether this scan failed, read by {@code staleCheckReport}. */
    @OutputFile
    public File getStatusFile() {
        return statusFile;
    }

    @InputFile
    @Optional
    @PathSensitive(PathSensitivity.NONE)
    public File getConfigFile() {
        return configFile;
    }

    public void setConfigFile(File configFile) {
        this.configFile = configFile;
    }

    /** Not an input itself: it may not exist yet (the first run); {@link #getBaselineFiles()} is. */
    @Internal
    public File getBaselineFile() {
        return baselineFile;
    }

    /** The baseline file when it exists: creating it with {@code staleBaseline} reruns the scan. */
    @InputFiles
    @PathSensitive(PathSensitivity.NONE)
    public List<File> getBaselineFiles() {
        List<File> files = new ArrayList<>();
        if (baselineFile != null && baselineFile.isFile()) {
            files.add(baselineFile);
        }
        return files;
    }

    public void setBaselineFile(File baselineFile) {
        this.baselineFile = baselineFile;
    }

    @Input
    @Optional
    public String getFailOn() {
        return failOn;
    }

    public void setFailOn(String failOn) {
        this.failOn = failOn;
    }

    @Input
    public List<String> getRules() {
        return rules;
    }

    public void setRules(List<String> rules) {
        this.rules = rules == null ? new ArrayList<String>() : new ArrayList<>(rules);
    }

    @Input
    public boolean getOpenWorld() {
        return openWorld;
    }

    public void setOpenWorld(boolean openWorld) {
        this.openWorld = openWorld;
    }

    /** {@code --world} for the scan; {@code null}: the scanner decides. */
    @Input
    @Optional
    public String getWorld() {
        return world;
    }

    public void setWorld(String world) {
        this.world = world;
    }

    @Input
    public boolean getIgnoreFailures() {
        return ignoreFailures;
    }

    public void setIgnoreFailures(boolean ignoreFailures) {
        this.ignoreFailures = ignoreFailures;
    }

    /** Set when {@code staleCheckReport} runs: it fails the build after merging instead. */
    @Input
    public boolean getDeferFailures() {
        return deferFailures;
    }

    public void setDeferFailures(boolean deferFailures) {
        this.deferFailures = deferFailures;
    }

    /**
     * The scanner's summary cache directory (null: none). Not an input: the findings are the same
     * with or without it, and it differs between machines (the task stays relocatable and cacheable).
     */
    @Internal
    public File getCacheDir() {
        return spec.cacheDir;
    }

    /** Not an input: where the binary is differs between machines (upgrade it: --rerun-tasks). */
    @Internal
    public String getExecutable() {
        return executable;
    }

    public void setExecutable(String executable) {
        this.executable = executable;
    }

    void setScanner(Scanner scanner, String baselineTask) {
        this.scanner = scanner;
        this.baselineTask = baselineTask;
    }

    @TaskAction
    public void scan() {
        String binary = Binary.locate(executable, scanner, new File(getTemporaryDir(), "bin"), getLogger());
        boolean withBaseline = baselineFile != null && baselineFile.isFile();
        List<String> command = new ArrayList<>();
        command.add(binary);
        command.add("scan");
        command.addAll(spec.inputArgs(rootDir, new File(getTemporaryDir(), "classpath.txt")));
        command.addAll(ScanSpec.optionArgs(rules, openWorld, world, configFile));
        command.addAll(spec.cacheArgs(binary));
        command.add("--format");
        command.add("sarif");
        command.add("--output");
        command.add(reportFile.getAbsolutePath());
        if (withBaseline) {
            command.add("--baseline");
            command.add(baselineFile.getAbsolutePath());
        } else if (baselineFile != null) {
            getLogger().lifecycle("stalecheck {}: no baseline yet ({} does not exist): every finding counts as new."
                    + " Run `gradle {}` to create it; then only new findings fail the build.", spec.name, baselineFile,
                    baselineTask);
        }
        if (failOn != null && !failOn.trim().isEmpty()) {
            command.add("--fail-on");
            command.add(failOn.trim());
        }
        List<File> agentSarifs = new ArrayList<>();
        for (File report : agentReports) {
            if (report.isFile()) {
                command.add("--confirmations");
                command.add(report.getAbsolutePath());
                String n = report.getName();
                File sarif = new File(report.getParentFile(),
                        (n.endsWith(".json") ? n.substring(0, n.length() - 5) : n) + ".sarif");
                if (sarif.isFile()) {
                    agentSarifs.add(sarif);
                }
            }
        }
        if (Binary.supportsConsole(binary)) {
            command.add("--console");
            command.add("gradle");
        }
        boolean html = htmlReportFile != null && Binary.supportsHtml(binary);
        if (html) {
            command.add("--html");
            command.add(htmlReportFile.getAbsolutePath());
            if (htmlReportFile.exists() && !htmlReportFile.delete()) {
                throw new GradleException("stalecheck: cannot replace " + htmlReportFile);
            }
        } else if (htmlReportFile != null) {
            getLogger().lifecycle("stalecheck {}: this stalecheck binary cannot write an HTML report (no scan --html);"
                    + " only the SARIF file is written", spec.name);
        }
        if (reportFile.exists() && !reportFile.delete()) {
            throw new GradleException("stalecheck: cannot replace " + reportFile);
        }
        int code = Binary.run(command, rootDir, getLogger());
        if ((code == 0 || code == 1) && reportFile.isFile() && !agentSarifs.isEmpty()) {
            // The agent's own runs join the report (tool stalecheck-agent, its own category).
            List<String> merge = new ArrayList<>();
            merge.add(binary);
            merge.add("merge");
            merge.add(reportFile.getAbsolutePath());
            for (File f : agentSarifs) {
                merge.add(f.getAbsolutePath());
            }
            merge.add("--output");
            merge.add(reportFile.getAbsolutePath());
            if (Binary.run(merge, rootDir, getLogger()) != 0) {
                throw new GradleException("stalecheck: merging the agent's reports failed: " + merge);
            }
        }
        String where = reportFile.toPath().toUri().toString();
        if (html && htmlReportFile.isFile()) {
            getLogger().lifecycle("stalecheck {}: HTML report: {}", spec.name, htmlReportFile.toPath().toUri());
        }
        if (code == 0) {
            ScanSpec.write(statusFile, CLEAN + "\n");
            getLogger().lifecycle("stalecheck {}: no {}findings{}. Report: {}", spec.name, withBaseline ? "new " : "",
                    level(), where);
            return;
        }
        if (code == 1 && reportFile.isFile()) {
            ScanSpec.write(statusFile, (ignoreFailures ? CLEAN : FINDINGS) + "\n");
            String message = "stalecheck found " + (withBaseline ? "new " : "") + "findings"
                    + level() + " in source set '" + spec.name + "'. See the report at: " + where;
            if (ignoreFailures || deferFailures) {
                getLogger().warn(message);
                return;
            }
            throw new GradleException(message);
        }
        throw new GradleException("stalecheck exited with code " + code + " for source set '" + spec.name
                + "' (2 = an input could not be read, or a usage or configuration error; see the output above). Command: " + command);
    }

    private String level() {
        String f = failOn == null || failOn.trim().isEmpty() ? "warning" : failOn.trim();
        return "none".equals(f) ? "" : " at level " + f + " or above";
    }
}
