package io.github.stalecheck.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.resolution.ArtifactRequest;

/**
 * Attaches the run-time agent to the tests, as JaCoCo's {@code prepare-agent} does: writes the
 * module's atomic sections ({@code stalecheck scan --sections}, {@code target/stalecheck-sections.json}),
 * resolves the agent jar ({@code io.github.stalecheck:stalecheck-agent} of the plugin's version)
 * and adds {@code -javaagent:...} to the {@code argLine} property that Surefire and Failsafe pass
 * to the test JVM. The agent writes {@code target/stalecheck-agent.json} (and {@code .sarif});
 * the {@code check} goal then marks the findings the agent saw broken.
 */
@Mojo(name = "prepare-agent", defaultPhase = LifecyclePhase.PROCESS_TEST_CLASSES,
        requiresDependencyResolution = ResolutionScope.TEST, threadSafe = true)
public class PrepareAgentMojo extends AbstractStaleCheckMojo {
    /** The property the agent is added to (Surefire's and Failsafe's {@code argLine}). */
    @Parameter(property = "stalecheck.agent.propertyName", defaultValue = "argLine")
    private String propertyName;

    /** The agent jar; unset, the plugin resolves {@code io.github.stalecheck:stalecheck-agent}. */
    @Parameter(property = "stalecheck.agent.jar")
    private File agentJar;

    /** The sections file the scan writes and the agent reads. */
    @Parameter(property = "stalecheck.agent.sections", defaultValue = "${project.build.directory}/stalecheck-sections.json")
    private File sectionsFile;

    /** The agent's JSON report (its SARIF report is written beside it). */
    @Parameter(property = "stalecheck.agent.report", defaultValue = "${project.build.directory}/stalecheck-agent.json")
    private File agentReport;

    /** {@code none}, {@code random}, {@code variable} or {@code location} (the agent's noise heuristics). */
    @Parameter(property = "stalecheck.agent.noise", defaultValue = "random")
    private String noise;

    /** How often noise is injected when a section starts, per mille. */
    @Parameter(property = "stalecheck.agent.permille", defaultValue = "100")
    private int permille;

    /** The noise's sleep in milliseconds (0: a yield only). */
    @Parameter(property = "stalecheck.agent.sleep", defaultValue = "1")
    private int sleep;

    /** {@code sections} (the scan's sections) or {@code full} (every access: data races as well). */
    @Parameter(property = "stalecheck.agent.mode", defaultValue = "sections")
    private String mode;

    /** Section ids to heal, one a line; unset, nothing is healed. */
    @Parameter(property = "stalecheck.agent.heal")
    private File healFile;

    @Override
    public void execute() throws MojoExecutionException {
        if (skip) {
            getLog().info("stalecheck: skipped");
            return;
        }
        List<String> classDirs = classDirs();
        if (classDirs.isEmpty()) {
            getLog().info("stalecheck: no classes in " + project.getBuild().getOutputDirectory() + "; no agent");
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
        command.add("json");
        command.add("--output");
        command.add(new File(target, "stalecheck-scan.json").getAbsolutePath());
        command.add("--fail-on");
        command.add("none");
        command.add("--sections");
        command.add(sectionsFile.getAbsolutePath());
        int code = Binary.run(command, workDir(), getLog());
        if (code != 0 || !sectionsFile.isFile()) {
            throw new MojoExecutionException("stalecheck: the scan for the agent's sections exited with code " + code
                    + ". Command: " + command);
        }
        File jar = agentJar != null ? agentJar : resolveAgent();
        if (!jar.isFile()) {
            throw new MojoExecutionException("stalecheck: no agent jar at " + jar);
        }
        StringBuilder opts = new StringBuilder();
        opts.append("sections=").append(sectionsFile.getAbsolutePath());
        opts.append(",out=").append(agentReport.getAbsolutePath());
        opts.append(",mode=").append(mode);
        opts.append(",noise=").append(noise);
        opts.append(",permille=").append(permille);
        opts.append(",sleep=").append(sleep);
        if (healFile != null) {
            opts.append(",heal=").append(healFile.getAbsolutePath());
        }
        String agent = "-javaagent:" + jar.getAbsolutePath() + "=" + opts;
        if (agent.indexOf(' ') >= 0) {
            agent = "\"" + agent + "\"";
        }
        Properties props = project.getProperties();
        String old = props.getProperty(propertyName);
        String value = old == null || old.trim().isEmpty() ? agent : old + " " + agent;
        props.setProperty(propertyName, value);
        if (agentReport.exists() && !agentReport.delete()) {
            throw new MojoExecutionException("stalecheck: cannot replace " + agentReport);
        }
        getLog().info("stalecheck: agent attached: " + propertyName + " = " + value);
    }

    private File resolveAgent() throws MojoExecutionException {
        String coordinates = Platform.GROUP + ":stalecheck-agent:" + pluginVersion;
        try {
            ArtifactRequest request = new ArtifactRequest(
                    new DefaultArtifact(Platform.GROUP, "stalecheck-agent", "", "jar", pluginVersion),
                    project.getRemoteProjectRepositories(), null);
            return repositorySystem.resolveArtifact(session.getRepositorySession(), request).getArtifact().getFile();
        } catch (Exception e) {
            throw new MojoExecutionException("stalecheck: the agent " + coordinates + " could not be resolved from the"
                    + " project's repositories (" + e.getMessage() + "). Add the repository that holds it, or set"
                    + " <agentJar> (-Dstalecheck.agent.jar=...) to agent/target/stalecheck-agent.jar of a stalecheck"
                    + " checkout (mvn -f agent/pom.xml package)", e);
        }
    }
}
