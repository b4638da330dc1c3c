package io.github.stalecheck.maven;

import java.io.File;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.logging.Log;
import org.apache.maven.project.MavenProject;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.resolution.ArtifactRequest;

/**
 * The scanner binary as a Maven artifact of the plugin's own version,
 * {@code io.github.stalecheck:stalecheck-cli:exe:CLASSIFIER:VERSION}, resolved with the
 * repository system from the project's remote repositories (its {@code <repositories>} and the
 * settings' mirrors and profiles), into the local repository like any dependency.
 */
final class Scanner {
    private Scanner() {}

    static String locate(String executable, MavenProject project, MavenSession session, RepositorySystem system,
            String version, Log log) throws MojoExecutionException {
        Binary.Resolver resolver = (group, artifact, classifier, extension, v) -> {
            ArtifactRequest request = new ArtifactRequest(new DefaultArtifact(group, artifact, classifier, extension, v),
                    project.getRemoteProjectRepositories(), null);
            return system.resolveArtifact(session.getRepositorySession(), request).getArtifact().getFile();
        };
        File exeDir = new File(project.getBuild().getDirectory(), "stalecheck-bin");
        return Binary.locate(executable, project.getBasedir(), resolver, version, exeDir, log);
    }
}
