package io.github.stalecheck.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.Execute;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Writes (or refreshes) {@code baselineFile} with the module's current findings, so that
 * {@code check} fails only on new ones: {@code mvn stalecheck:baseline} (compiles first).
 */
@Mojo(name = "baseline", requiresDependencyResolution = ResolutionScope.TEST, threadSafe = true)
@Execute(phase = LifecyclePhase.TEST_COMPILE)
public class BaselineMojo extends AbstractStaleCheckMojo {
    @Override
    public void execute() throws MojoExecutionException {
        if (skip) {
            getLog().info("stalecheck: skipped");
            return;
        }
        if (baselineFile == null) {
            throw new MojoExecutionException("stalecheck: the baseline goal needs a baseline file: set "
                    + "<baselineFile>${project.basedir}/stalecheck-baseline.sarif</baselineFile> in the plugin configuration"
                    + " (or -Dstalecheck.baselineFile=...).");
        }
        List<String> classDirs = classDirs();
        if (classDirs.isEmpty()) {
            getLog().info("stalecheck: no classes in " + project.getBuild().getOutputDirectory() + "; no baseline written");
            return;
        }
        File target = new File(project.getBuild().getDirectory());
        List<String> command = new ArrayList<>();
        command.add(binary());
        command.add("baseline");
        command.addAll(inputArgs(classDirs, new File(target, "stalecheck-classpath.txt")));
        command.addAll(optionArgs());
        command.addAll(cacheArgs(command.get(0)));
        command.add("--output");
        command.add(baselineFile.getAbsolutePath());
        write(baselineFile, "");
        int code = Binary.run(command, workDir(), getLog());
        if (code != 0 || baselineFile.length() == 0) {
            throw new MojoExecutionException("stalecheck baseline failed with exit code " + code
                    + " (see the output above). Command: " + command);
        }
        getLog().info("stalecheck: baseline written to " + baselineFile);
    }
}
