package io.github.stalecheck.maven;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.eclipse.aether.RepositorySystem;

/**
 * Merges the {@code target/stalecheck.sarif} of every module of the reactor into one file
 * ({@code target/stalecheck-aggregate.sarif} of the root) with {@code stalecheck merge}. Run it
 * after the modules were checked, e.g. {@code mvn verify -Dstalecheck.failOnViolation=false}
 * then {@code mvn stalecheck:aggregate}: it fails when any module's check found something.
 */
@Mojo(name = "aggregate", aggregator = true, threadSafe = true)
public class AggregateMojo extends AbstractMojo {
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    @Parameter(defaultValue = "${session}", readonly = true, required = true)
    private MavenSession session;

    /** Skip stalecheck. */
    @Parameter(property = "stalecheck.skip", defaultValue = "false")
    private boolean skip;

    /** Fail when a module's {@code check} found findings (recorded next to its report). */
    @Parameter(property = "stalecheck.failOnViolation", defaultValue = "true")
    private boolean failOnViolation;

    /** The plugin's version: the version of the scanner binary it resolves. */
    @Parameter(defaultValue = "${plugin.version}", readonly = true, required = true)
    private String pluginVersion;

    @Component
    private RepositorySystem repositorySystem;

    /** The {@code stalecheck} binary (see {@code check}). */
    @Parameter(property = "stalecheck.executable")
    private String executable;

    /** The merged report. */
    @Parameter(property = "stalecheck.aggregateFile",
            defaultValue = "${project.build.directory}/stalecheck-aggregate.sarif")
    private File aggregateFile;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("stalecheck: skipped");
            return;
        }
        List<String> inputs = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (MavenProject module : session.getProjects()) {
            File target = new File(module.getBuild().getDirectory());
            File report = new File(target, "stalecheck.sarif");
            if (!report.isFile()) {
                getLog().debug("stalecheck: no report in " + module.getArtifactId());
                continue;
            }
            inputs.add(report.getAbsolutePath());
            if (CheckMojo.FINDINGS.equals(read(CheckMojo.statusFile(target)))) {
                failed.add(module.getArtifactId() + " (" + report + ")");
            }
        }
        if (inputs.isEmpty()) {
            throw new MojoExecutionException("stalecheck: no module has a target/stalecheck.sarif to merge;"
                    + " run the check goal first (mvn verify).");
        }
        if (aggregateFile.exists() && !aggregateFile.delete()) {
            throw new MojoExecutionException("stalecheck: cannot replace " + aggregateFile);
        }
        File parent = aggregateFile.getParentFile();
        if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
            throw new MojoExecutionException("stalecheck: cannot create " + parent);
        }
        List<String> command = new ArrayList<>();
        command.add(Scanner.locate(executable, project, session, repositorySystem, pluginVersion, getLog()));
        command.add("merge");
        command.addAll(inputs);
        command.add("--output");
        command.add(aggregateFile.getAbsolutePath());
        int code = Binary.run(command, project.getBasedir(), getLog());
        if (code != 0 || !aggregateFile.isFile()) {
            throw new MojoExecutionException("stalecheck merge failed with exit code " + code
                    + " (see the output above; `merge` needs a stalecheck binary with the reporting subcommands). Command: "
                    + command);
        }
        getLog().info("stalecheck: merged " + inputs.size() + " report(s) into " + aggregateFile);
        if (!failed.isEmpty()) {
            String message = "stalecheck found findings in " + String.join(", ", failed) + ". Merged report: "
                    + aggregateFile;
            if (failOnViolation) {
                throw new MojoFailureException(message);
            }
            getLog().warn(message);
        }
    }

    private static String read(File f) throws MojoExecutionException {
        try {
            return f.isFile() ? new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8).trim() : "";
        } catch (IOException e) {
            throw new MojoExecutionException("stalecheck: cannot read " + f + ": " + e.getMessage(), e);
        }
    }
}
