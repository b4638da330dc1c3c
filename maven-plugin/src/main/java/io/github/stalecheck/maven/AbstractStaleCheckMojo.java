package io.github.stalecheck.maven;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.eclipse.aether.RepositorySystem;

/** What {@code check} and {@code baseline} share: the inputs of one module and the scan options. */
abstract class AbstractStaleCheckMojo extends AbstractMojo {
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    protected MavenProject project;

    @Parameter(defaultValue = "${session}", readonly = true, required = true)
    protected MavenSession session;

    /** The plugin's version: the version of the scanner binary it resolves. */
    @Parameter(defaultValue = "${plugin.version}", readonly = true, required = true)
    protected String pluginVersion;

    @Component
    protected RepositorySystem repositorySystem;

    /** Skip stalecheck. */
    @Parameter(property = "stalecheck.skip", defaultValue = "false")
    protected boolean skip;

    /** Known findings (written by the {@code baseline} goal); only new findings fail the build. */
    @Parameter(property = "stalecheck.baselineFile")
    protected File baselineFile;

    /** A {@code stalecheck.toml}; unset, the binary searches from the reactor root directory upwards. */
    @Parameter(property = "stalecheck.configFile")
    protected File configFile;

    /** Comma-separated rule ids to run; default all. */
    @Parameter(property = "stalecheck.rules")
    protected String rules;

    /** Treat every public method of a class that synchronizes as a concurrent entry point. */
    @Parameter(property = "stalecheck.openWorld", defaultValue = "false")
    protected boolean openWorld;

    /**
     * What the project is, for the whole-program rules: {@code library} (its public API is called
     * from many threads), {@code application} (its main methods are the programs) or {@code auto}.
     * Unset: {@code application} when the jar's manifest names a {@code mainClass}
     * (maven-jar-plugin's {@code archive/manifest/mainClass}), {@code library} with
     * {@code openWorld}, otherwise the scanner decides.
     */
    @Parameter(property = "stalecheck.world")
    protected String world;

    /**
     * The {@code stalecheck} binary: a path or a command name. Unset: the {@code STALECHECK}
     * environment variable, else the artifact {@code io.github.stalecheck:stalecheck-cli:exe:CLASSIFIER:VERSION}
     * (this platform, the plugin's version) from the project's repositories, else {@code stalecheck} on {@code PATH}.
     */
    @Parameter(property = "stalecheck.executable")
    protected String executable;

    /** Also scan the test classes ({@code project.build.testOutputDirectory}), with the test classpath. */
    @Parameter(property = "stalecheck.includeTests", defaultValue = "false")
    protected boolean includeTests;

    /**
     * Use the scanner's summary cache: what it made of each dependency jar, reused while the jar
     * is unchanged (the findings are the same bytes with or without it).
     */
    @Parameter(property = "stalecheck.cache", defaultValue = "true")
    protected boolean cache;

    /**
     * Where the summary cache lives. Unset: {@code stalecheck-cache} next to the local repository
     * ({@code ~/.m2/stalecheck-cache}): shared by every build of the user, kept by {@code mvn clean}
     * and by CI caches of {@code ~/.m2}, and outside the repository itself.
     */
    @Parameter(property = "stalecheck.cacheDir")
    protected File cacheDir;

    /**
     * {@code --cache DIR} (or {@code --no-cache}) when the binary has the summary cache; nothing for
     * an older binary given as {@code executable}.
     */
    protected List<String> cacheArgs(String binary) {
        List<String> args = new ArrayList<>();
        if (!Binary.supports(binary, "--cache")) {
            return args;
        }
        File dir = cacheDir;
        if (dir == null && session.getLocalRepository() != null && session.getLocalRepository().getBasedir() != null) {
            dir = new File(new File(session.getLocalRepository().getBasedir()).getAbsoluteFile().getParentFile(),
                    "stalecheck-cache");
        }
        if (!cache || dir == null) {
            args.add("--no-cache");
        } else {
            args.add("--cache");
            args.add(dir.getAbsolutePath());
        }
        return args;
    }

    /**
     * The directory the binary runs in; source paths in the report are relative to it. The
     * reactor's root directory, so that SARIF paths resolve from the repository root.
     */
    protected File workDir() {
        File dir = session.getRequest().getMultiModuleProjectDirectory();
        if (dir == null && session.getExecutionRootDirectory() != null) {
            dir = new File(session.getExecutionRootDirectory());
        }
        return dir != null ? dir : project.getBasedir();
    }

    /** The class directories to scan (those that exist). */
    protected List<String> classDirs() {
        List<String> dirs = new ArrayList<>();
        addIfDir(dirs, project.getBuild().getOutputDirectory());
        if (includeTests) {
            addIfDir(dirs, project.getBuild().getTestOutputDirectory());
        }
        return dirs;
    }

    private static void addIfDir(List<String> dirs, String dir) {
        if (dir != null && new File(dir).isDirectory()) {
            dirs.add(new File(dir).getAbsolutePath());
        }
    }

    /**
     * Class directories, {@code --classpath @file} (the compile classpath, or the test classpath
     * with {@code includeTests}, one entry a line) and {@code --source-root}s relative to
     * {@link #workDir()}.
     */
    protected List<String> inputArgs(List<String> classDirs, File argFile) throws MojoExecutionException {
        List<String> args = new ArrayList<>(classDirs);
        List<String> elements;
        try {
            elements = includeTests ? project.getTestClasspathElements() : project.getCompileClasspathElements();
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("stalecheck: the classpath of " + project.getId() + " is not resolved", e);
        }
        Set<String> entries = new LinkedHashSet<>();
        for (String element : elements) {
            File f = new File(element);
            if (f.exists() && !classDirs.contains(f.getAbsolutePath())) {
                entries.add(f.getAbsolutePath());
            }
        }
        if (!entries.isEmpty()) {
            write(argFile, String.join("\n", entries) + "\n");
            args.add("--classpath");
            args.add("@" + argFile.getAbsolutePath());
        }
        List<String> roots = new ArrayList<>(project.getCompileSourceRoots());
        if (includeTests) {
            roots.addAll(project.getTestCompileSourceRoots());
        }
        // Every reactor module's source roots too: a class of another module on the classpath gets
        // locations in its real file.
        if (session.getProjects() != null) {
            for (MavenProject module : session.getProjects()) {
                if (module != project) {
                    roots.addAll(module.getCompileSourceRoots());
                }
            }
        }
        File workDir = workDir();
        Set<String> seen = new LinkedHashSet<>();
        for (String root : roots) {
            File dir = new File(root);
            if (dir.isDirectory() && seen.add(relative(workDir, dir))) {
                args.add("--source-root");
                args.add(relative(workDir, dir));
            }
        }
        return args;
    }

    /** The options every scan shares. */
    protected List<String> optionArgs() {
        List<String> args = new ArrayList<>();
        if (rules != null && !rules.trim().isEmpty()) {
            args.add("--rules");
            args.add(rules.replaceAll("\\s+", ""));
        }
        String chosen = world();
        if (chosen != null) {
            args.add("--world");
            args.add(chosen);
        }
        if (configFile != null) {
            args.add("--config");
            args.add(configFile.getAbsolutePath());
        }
        args.add("--no-progress");
        return args;
    }

    /** The world to pass to the scanner (see {@link #world}); {@code null}: the scanner decides. */
    protected String world() {
        if (world != null && !world.trim().isEmpty()) {
            return world.trim();
        }
        if (openWorld) {
            return "library";
        }
        for (org.apache.maven.model.Plugin plugin : project.getBuildPlugins()) {
            if (!"maven-jar-plugin".equals(plugin.getArtifactId())
                    || !(plugin.getConfiguration() instanceof org.codehaus.plexus.util.xml.Xpp3Dom)) {
                continue;
            }
            org.codehaus.plexus.util.xml.Xpp3Dom archive =
                    ((org.codehaus.plexus.util.xml.Xpp3Dom) plugin.getConfiguration()).getChild("archive");
            org.codehaus.plexus.util.xml.Xpp3Dom manifest = archive == null ? null : archive.getChild("manifest");
            org.codehaus.plexus.util.xml.Xpp3Dom main = manifest == null ? null : manifest.getChild("mainClass");
            if (main != null && main.getValue() != null && !main.getValue().trim().isEmpty()) {
                return "application";
            }
        }
        return null;
    }

    protected String binary() throws MojoExecutionException {
        return Scanner.locate(executable, project, session, repositorySystem, pluginVersion, getLog());
    }

    static String relative(File root, File file) {
        try {
            Path r = root.getCanonicalFile().toPath();
            Path p = file.getCanonicalFile().toPath();
            if (p.startsWith(r) && !p.equals(r)) {
                return r.relativize(p).toString().replace(File.separatorChar, '/');
            }
            return p.toString();
        } catch (IOException e) {
            return file.getAbsolutePath();
        }
    }

    static void write(File file, String text) throws MojoExecutionException {
        try {
            File parent = file.getParentFile();
            if (parent != null) {
                Files.createDirectories(parent.toPath());
            }
            Files.write(file.toPath(), text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new MojoExecutionException("stalecheck: cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
