package io.github.stalecheck.gradle;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.tasks.InputFiles;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.OutputFile;
import org.gradle.api.tasks.PathSensitive;
import org.gradle.api.tasks.PathSensitivity;
import org.gradle.api.tasks.TaskAction;

/**
 * {@code staleCheckReport} (root project): merges the SARIF reports of every project's
 * {@code staleCheck} into {@code build/reports/stalecheck/stalecheck.sarif}, one file to upload.
 * When it is part of the build, the scans it depends on do not fail on findings themselves (so
 * the merged report is always written); it fails afterwards if any of them found something.
 */
public class StaleCheckReportTask extends DefaultTask {
    private final List<File> reports = new ArrayList<>();
    private final List<File> statuses = new ArrayList<>();
    private final List<String> scanPaths = new ArrayList<>();
    private File mergedFile;
    private File rootDir;
    private String executable;
    private Scanner scanner;

    void add(String taskPath, File report, File status) {
        scanPaths.add(taskPath);
        reports.add(report);
        statuses.add(status);
    }

    void init(File mergedFile, File rootDir) {
        this.mergedFile = mergedFile;
        this.rootDir = rootDir;
    }

    @InputFiles
    @PathSensitive(PathSensitivity.RELATIVE)
    public List<File> getReports() {
        return reports;
    }

    @InputFiles
    @PathSensitive(PathSensitivity.RELATIVE)
    public List<File> getStatuses() {
        return statuses;
    }

    @Internal
    public List<String> getScanPaths() {
        return scanPaths;
    }

    @OutputFile
    public File getMergedFile() {
        return mergedFile;
    }

    public void setMergedFile(File mergedFile) {
        this.mergedFile = mergedFile;
    }

    @Internal
    public String getExecutable() {
        return executable;
    }

    public void setExecutable(String executable) {
        this.executable = executable;
    }

    void setScanner(Scanner scanner) {
        this.scanner = scanner;
    }

    @TaskAction
    public void merge() {
        List<String> inputs = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (int i = 0; i < reports.size(); i++) {
            File report = reports.get(i);
            if (!report.isFile()) {
                continue; // a source set without classes (NO-SOURCE)
            }
            inputs.add(report.getAbsolutePath());
            if (StaleCheckTask.FINDINGS.equals(read(statuses.get(i)))) {
                failed.add(scanPaths.get(i) + " (" + report + ")");
            }
        }
        if (inputs.isEmpty()) {
            throw new GradleException("stalecheck: no reports to merge: none of " + scanPaths + " wrote one.");
        }
        if (mergedFile.exists() && !mergedFile.delete()) {
            throw new GradleException("stalecheck: cannot replace " + mergedFile);
        }
        Merge.run(Binary.locate(executable, scanner, new File(getTemporaryDir(), "bin"), getLogger()), inputs, mergedFile, rootDir, getLogger());
        String where = mergedFile.toPath().toUri().toString();
        getLogger().lifecycle("stalecheck: merged {} report(s) into {}", inputs.size(), where);
        if (!failed.isEmpty()) {
            throw new GradleException("stalecheck found findings in " + String.join(", ", failed)
                    + ". Merged report: " + where);
        }
    }

    private static String read(File f) {
        try {
            return f.isFile() ? new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8).trim() : "";
        } catch (IOException e) {
            throw new GradleException("stalecheck: cannot read " + f + ": " + e.getMessage(), e);
        }
    }
}
