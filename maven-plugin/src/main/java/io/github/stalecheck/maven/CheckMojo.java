package io.github.stalecheck.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Scans the module's classes ({@code project.build.outputDirectory}, and the test classes with
 * {@code includeTests}) with the compile classpath and source roots, writes
 * {@code target/stalecheck.sarif} (and the HTML report {@code target/stalecheck.html}), and fails the build on findings at or above {@code failOn}
 * (only new ones with a {@code baselineFile}).
 */
@Mojo(name = "check", defaultPhase = LifecyclePhase.VERIFY, requiresDependencyResolution = ResolutionScope.TEST,
        threadSafe = true)
public class CheckMojo extends AbstractStaleCheckMojo {
    static final String FINDINGS = "findings";
    static final String CLEAN = "clean";

    /** Fail the build when findings at or above {@code failOn} are reported. */
    @Parameter(property = "stalecheck.failOnViolation", defaultValue = "true")
    private boolean failOnViolation;

    /** {@code error}, {@code warning} (the binary's default when unset), {@code note} or {@code none}. */
    @Parameter(property = "stalecheck.failOn")
    private String failOn;

    /** The SARIF report. */
    @Parameter(property = "stalecheck.outputFile", defaultValue = "${project.build.directory}/stalecheck.sarif")
    private File outputFile;

    /**
     * The HTML report, written next to the SARIF report (as SpotBugs writes its HTML report);
     * {@code htmlReport = false} leaves it out.
     */
    @Parameter(property = "stalecheck.htmlOutputFile", defaultValue = "${project.build.directory}/stalecheck.html")
    private File htmlOutputFile;

    /**
     * The run-time agent's report ({@code prepare-agent}): when it exists, the findings the agent
     * saw broken are marked confirmed in the SARIF report, and the agent's own SARIF report
     * (beside it, {@code .sarif}) is merged into it as a run of its own.
     */
    @Parameter(property = "stalecheck.agent.report", defaultValue = "${project.build.directory}/stalecheck-agent.json")
    private File agentReport;

    /** Also write the HTML report ({@code htmlOutputFile}). */
    @Parameter(property = "stalecheck.htmlReport", defaultValue = "true")
    private boolean htmlReport;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("stalecheck: skipped");
            return;
        }
        List<String> classDirs = classDirs();
        if (classDirs.isEmpty()) {
            getLog().info("stalecheck: no classes in " + project.getBuild().getOutputDirectory() + "; nothing to scan");
            return;
        }
        File target = new File(project.getBuild().getDirectory());
        List<String> command = new ArrayList<>();
        command.add(binary());
        command.add("scan");
        command.addAll(inputArgs(classDirs, new File(target, "stalecheck-classpath.txt")));
        command.addAll(optionArgs());
        command.addAll(cacheArgs(command.get(0)));
        command.add("--format");
        command.add("sarif");
        command.add("--output");
        command.add(outputFile.getAbsolutePath());
        boolean withBaseline = baselineFile != null && baselineFile.isFile();
        if (withBaseline) {
            command.add("--baseline");
            command.add(baselineFile.getAbsolutePath());
        } else if (baselineFile != null) {
            getLog().info("stalecheck: no baseline yet (" + baselineFile + " does not exist): every finding counts as new."
                    + " Run `mvn stalecheck:baseline` to create it; then only new findings fail the build.");
        }
        if (failOn != null && !failOn.trim().isEmpty()) {
            command.add("--fail-on");
            command.add(failOn.trim());
        }
        if (agentReport != null && agentReport.isFile()) {
            command.add("--confirmations");
            command.add(agentReport.getAbsolutePath());
        }
        if (Binary.supportsConsole(command.get(0))) {
            command.add("--console");
            command.add("maven");
        }
        boolean html = htmlReport && htmlOutputFile != null && Binary.supportsHtml(command.get(0));
        if (html) {
            command.add("--html");
            command.add(htmlOutputFile.getAbsolutePath());
            if (htmlOutputFile.exists() && !htmlOutputFile.delete()) {
                throw new MojoExecutionException("stalecheck: cannot replace " + htmlOutputFile);
            }
        } else if (htmlReport) {
            getLog().info("stalecheck: this stalecheck binary cannot write an HTML report (no scan --html);"
                    + " only the SARIF file is written");
        }
        if (outputFile.exists() && !outputFile.delete()) {
            throw new MojoExecutionException("stalecheck: cannot replace " + outputFile);
        }
        File status = statusFile(target);
        int code = Binary.run(command, workDir(), getLog());
        if ((code == 0 || code == 1) && outputFile.isFile()) {
            mergeAgentSarif(command.get(0));
        }
        if (html && htmlOutputFile.isFile()) {
            getLog().info("stalecheck: HTML report: " + htmlOutputFile);
        }
        String level = level(failOn);
        if (code == 0) {
            write(status, CLEAN + "\n");
            getLog().info("stalecheck: no " + (withBaseline ? "new " : "") + "findings" + level + ". Report: "
                    + outputFile);
            return;
        }
        if (code == 1 && outputFile.isFile()) {
            write(status, FINDINGS + "\n");
            String message = "stalecheck found " + (withBaseline ? "new " : "") + "findings" + level + " in "
                    + project.getArtifactId() + ". See the report at: " + outputFile;
            if (!failOnViolation) {
                getLog().warn(message);
                return;
            }
            throw new MojoFailureException(message);
        }
        throw new MojoExecutionException("stalecheck exited with code " + code
                + " (2 = an input could not be read, or a usage or configuration error; see the output above). Command: " + command);
    }

    /** The agent's SARIF report, when there is one, joins the SARIF report as a run of its own. */
    private void mergeAgentSarif(String exe) throws MojoExecutionException {
        if (agentReport == null || !agentReport.isFile()) {
            return;
        }
        String name = agentReport.getName();
        File sarif = new File(agentReport.getParentFile(),
                (name.endsWith(".json") ? name.substring(0, name.length() - 5) : name) + ".sarif");
        if (!sarif.isFile()) {
            return;
        }
        List<String> merge = new ArrayList<>();
        merge.add(exe);
        merge.add("merge");
        merge.add(outputFile.getAbsolutePath());
        merge.add(sarif.getAbsolutePath());
        merge.add("--output");
        merge.add(outputFile.getAbsolutePath());
        int code = Binary.run(merge, workDir(), getLog());
        if (code != 0) {
            throw new MojoExecutionException("stalecheck: merging the agent's report failed (" + code + "): " + merge);
        }
    }

    /** {@code findings} or {@code clean}: read by the {@code aggregate} goal. */
    static File statusFile(File buildDirectory) {
        return new File(buildDirectory, "stalecheck.status");
    }

    static String level(String failOn) {
        String f = failOn == null || failOn.trim().isEmpty() ? "warning" : failOn.trim();
        return "none".equals(f) ? "" : " at level " + f + " or above";
    }
}
