package io.github.stalecheck.gradle;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import org.gradle.api.Action;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.Plugin;
import org.gradle.api.Project;
import org.gradle.api.Task;
import org.gradle.api.artifacts.Configuration;
import org.gradle.api.file.FileCollection;
import org.gradle.api.tasks.SourceSet;
import org.gradle.api.tasks.SourceSetContainer;
import org.gradle.api.tasks.testing.Test;

/**
 * Plugin {@code io.github.stalecheck}. Applied to a project with the {@code java} plugin it adds
 * {@code staleCheck<SourceSet>} for every source set, the aggregate {@code staleCheck} (the source
 * sets of {@code stalecheck { sourceSets }}, default {@code main}) that {@code check} depends on,
 * and {@code staleBaseline}. Applied to the root project it also adds {@code staleCheckReport}.
 *
 * <p>Compatibility (Gradle 4.4 to 9.x): tasks are made with {@code TaskContainer.create} (present
 * in every version; {@code register} appeared in 4.9); source sets are found as an extension
 * (Gradle 7+) or, before that, through the {@code sourceSets} convention property, without
 * naming {@code JavaPluginConvention} (removed in Gradle 9); the build directory is read through
 * {@code ProjectLayout} ({@code Project.getBuildDir()} is deprecated); tasks hold only files,
 * file collections and strings and never call {@code getProject()} when they run.
 */
public class StaleCheckPlugin implements Plugin<Project> {
    static final String GROUP = "verification";
    static final String AGGREGATE = "staleCheck";
    static final String BASELINE = "staleBaseline";
    static final String REPORT = "staleCheckReport";

    @Override
    public void apply(Project project) {
        StaleCheckExtension extension = project.getExtensions().create("stalecheck", StaleCheckExtension.class);
        if (project.getParent() == null) {
            addReportTask(project, extension);
        }
        project.getPluginManager().withPlugin("java", plugin -> addScanTasks(project, extension));
    }

    private static void addScanTasks(Project project, StaleCheckExtension extension) {
        SourceSetContainer sourceSets = sourceSets(project);
        File rootDir = project.getRootDir();

        DefaultTask aggregate = project.getTasks().create(AGGREGATE, DefaultTask.class);
        aggregate.setGroup(GROUP);
        aggregate.setDescription("Runs stalecheck on the source sets of `stalecheck { sourceSets }` (default: main).");
        project.getTasks().getByName("check").dependsOn(aggregate);

        StaleBaselineTask baseline = project.getTasks().create(BASELINE, StaleBaselineTask.class);
        baseline.setGroup(GROUP);
        baseline.setDescription("Writes the current stalecheck findings to `stalecheck { baselineFile }`.");

        sourceSets.all(sourceSet -> {
            StaleCheckTask task = project.getTasks().create(taskName(sourceSet), StaleCheckTask.class);
            task.setGroup(GROUP);
            task.setDescription("Runs stalecheck on the classes of source set '" + sourceSet.getName() + "'.");
            task.init(spec(project, sourceSet), rootDir, null, null);
        });

        project.getGradle().projectsEvaluated(gradle -> {
            List<File> others = mainSourceDirs(project.getRootProject());
            for (StaleCheckTask task : project.getTasks().withType(StaleCheckTask.class)) {
                task.spec().otherSourceDirs = others;
            }
        });

        afterEvaluate(project, () -> {
            Scanner resolved = scanner(project, null);
            String baselineTask = project.getParent() == null ? BASELINE : project.getPath() + ":" + BASELINE;
            File reports = new File(buildDir(project), "reports/stalecheck");
            File state = new File(buildDir(project), "stalecheck");
            for (StaleCheckTask task : project.getTasks().withType(StaleCheckTask.class)) {
                String name = task.getSourceSetName();
                if (task.getReportFile() == null) {
                    task.setReportFile(new File(reports, name + ".sarif"));
                }
                if (task.getHtmlReportFile() == null && extension.getHtmlReport()) {
                    // Next to the SARIF file, as SpotBugs writes its HTML report.
                    String sarif = task.getReportFile().getName();
                    String base = sarif.endsWith(".sarif") ? sarif.substring(0, sarif.length() - 6) : sarif;
                    task.setHtmlReportFile(new File(task.getReportFile().getParentFile(), base + ".html"));
                }
                task.init(task.spec(), rootDir, task.getReportFile(), new File(state, name + ".status"));
                task.spec().cacheDir = cacheDir(project, extension);
                if (task.getFailOn() == null) {
                    task.setFailOn(extension.getFailOn());
                }
                if (task.getBaselineFile() == null) {
                    task.setBaselineFile(extension.getBaselineFile());
                }
                if (task.getConfigFile() == null) {
                    task.setConfigFile(extension.getConfigFile());
                }
                if (task.getRules().isEmpty()) {
                    task.setRules(extension.getRules());
                }
                if (task.getExecutable() == null) {
                    task.setExecutable(executable(project, extension));
                }
                task.setOpenWorld(task.getOpenWorld() || extension.getOpenWorld());
                if (task.getWorld() == null) {
                    task.setWorld(world(project, extension));
                }
                task.setIgnoreFailures(task.getIgnoreFailures() || extension.getIgnoreFailures());
                task.setScanner(task.getExecutable() == null ? resolved : scanner(project, task.getExecutable()),
                        baselineTask);
            }

            List<ScanSpec> selected = new ArrayList<>();
            for (String name : new LinkedHashSet<>(extension.getSourceSets())) {
                SourceSet sourceSet = sourceSets.findByName(name);
                if (sourceSet == null) {
                    throw new GradleException("stalecheck { sourceSets } names '" + name + "', which is not a source set of "
                            + project + " (its source sets: " + sourceSets.getNames() + ").");
                }
                StaleCheckTask task = (StaleCheckTask) project.getTasks().getByName(taskName(sourceSet));
                task.setAggregated(true);
                aggregate.dependsOn(task);
                selected.add(task.spec());
                baseline.dependsOn(sourceSet.getClassesTaskName());
            }
            baseline.configure(selected, rootDir, extension.getBaselineFile(), extension.getConfigFile(),
                    extension.getRules(), extension.getOpenWorld(), world(project, extension),
                    executable(project, extension));
            baseline.setScanner(executable(project, extension) == null ? resolved
                    : scanner(project, executable(project, extension)));
            if (extension.getAgent().getEnabled()) {
                attachAgent(project, extension, sourceSets, resolved, rootDir);
            }
        });
    }

    /**
     * {@code stalecheck { agent { } }}: {@code staleAgentSections} writes the main source set's
     * sections; every {@code Test} task depends on it and starts its JVM with the agent
     * ({@code -javaagent:...}, report {@code build/stalecheck/agent-<task>.json}); the scan tasks run
     * after the tests and mark the findings the agent saw broken, with the agent's SARIF run merged in.
     */
    private static void attachAgent(Project project, StaleCheckExtension extension, SourceSetContainer sourceSets,
            Scanner resolved, File rootDir) {
        AgentSpec agent = extension.getAgent();
        SourceSet main = sourceSets.findByName("main");
        if (main == null) {
            throw new GradleException("stalecheck { agent { } } needs the main source set (" + project + " has none)");
        }
        File dir = new File(buildDir(project), "stalecheck");
        StaleAgentSectionsTask sections = project.getTasks().create("staleAgentSections", StaleAgentSectionsTask.class);
        sections.setGroup(GROUP);
        sections.setDescription("Writes the atomic sections the stalecheck agent monitors in the tests.");
        sections.dependsOn(main.getClassesTaskName());
        String exe = executable(project, extension);
        sections.configure(spec(project, main), rootDir, new File(dir, "sections.json"), exe,
                exe == null ? resolved : scanner(project, exe));
        sections.spec().cacheDir = cacheDir(project, extension);
        FileCollection jar;
        if (agent.getJar() != null) {
            jar = project.files(agent.getJar());
        } else {
            Configuration configuration = project.getConfigurations().detachedConfiguration(
                    project.getDependencies().create(Platform.GROUP + ":stalecheck-agent:" + version()));
            configuration.setTransitive(false);
            jar = project.files(configuration);
        }
        final File sectionsFile = sections.sectionsFile();
        final File healFile = new File(dir, "heal.txt");
        final List<String> healSections = new ArrayList<>(agent.getHealSections());
        if (agent.getHeal() && healSections.isEmpty()) {
            throw new GradleException("stalecheck { agent { heal = true } } needs healSections = ['<section id>', ...]"
                    + " (ids from " + sectionsFile + ")");
        }
        final String options = ",mode=" + agent.getMode() + ",noise=" + agent.getNoise() + ",permille="
                + agent.getPermille() + ",sleep=" + agent.getSleep();
        final boolean heal = agent.getHeal();
        for (Test test : project.getTasks().withType(Test.class)) {
            final File report = new File(dir, "agent-" + test.getName() + ".json");
            test.dependsOn(sections);
            test.doFirst(new Action<Task>() {
                @Override
                public void execute(Task t) {
                    if (report.exists() && !report.delete()) {
                        throw new GradleException("stalecheck: cannot replace " + report);
                    }
                    StringBuilder arg = new StringBuilder("-javaagent:").append(jar.getSingleFile().getAbsolutePath())
                            .append("=sections=").append(sectionsFile.getAbsolutePath()).append(",out=")
                            .append(report.getAbsolutePath()).append(options);
                    if (heal) {
                        StringBuilder ids = new StringBuilder();
                        for (String id : healSections) {
                            ids.append(id).append('\n');
                        }
                        ScanSpec.write(healFile, ids.toString());
                        arg.append(",heal=").append(healFile.getAbsolutePath());
                    }
                    ((Test) t).jvmArgs(arg.toString());
                    t.getLogger().lifecycle("stalecheck: agent attached to {}: {}", t.getPath(), arg);
                }
            });
            for (StaleCheckTask task : project.getTasks().withType(StaleCheckTask.class)) {
                task.mustRunAfter(test);
                task.addAgentReport(report);
            }
        }
    }

    /**
     * The root project's {@code staleCheckReport}: after all projects are evaluated it collects
     * the aggregated scan tasks of every project; when it is in the task graph those scans defer
     * their failure to it, so the merged report is written even when there are findings.
     */
    private static void addReportTask(Project root, StaleCheckExtension extension) {
        StaleCheckReportTask report = root.getTasks().create(REPORT, StaleCheckReportTask.class);
        report.setGroup(GROUP);
        report.setDescription("Merges the stalecheck SARIF reports of all projects into one file.");
        afterEvaluate(root, () -> {
            if (report.getMergedFile() == null) {
                report.setMergedFile(new File(buildDir(root), "reports/stalecheck/stalecheck.sarif"));
            }
            report.init(report.getMergedFile(), root.getRootDir());
            if (report.getExecutable() == null) {
                report.setExecutable(executable(root, extension));
            }
            report.setScanner(scanner(root, report.getExecutable()));
        });
        root.getGradle().projectsEvaluated(gradle -> {
            List<StaleCheckTask> scans = new ArrayList<>();
            for (Project p : root.getAllprojects()) {
                for (StaleCheckTask task : p.getTasks().withType(StaleCheckTask.class)) {
                    if (task.isAggregated()) {
                        scans.add(task);
                        report.add(task.getPath(), task.getReportFile(), task.getStatusFile());
                        report.dependsOn(task);
                    }
                }
            }
            gradle.getTaskGraph().whenReady(graph -> {
                if (graph.hasTask(report)) {
                    for (StaleCheckTask task : scans) {
                        task.setDeferFailures(true);
                    }
                }
            });
        });
    }

    /**
     * The scanner's summary cache: {@code stalecheck { cacheDir }}, else the Gradle user home's
     * {@code caches/stalecheck} (one cache for every build of the machine, kept by CI caches of the
     * Gradle user home); null when {@code stalecheck { cache = false }}.
     */
    private static File cacheDir(Project project, StaleCheckExtension extension) {
        if (!extension.getCache()) {
            return null;
        }
        if (extension.getCacheDir() != null) {
            return project.file(extension.getCacheDir());
        }
        return new File(project.getGradle().getGradleUserHomeDir(), "caches/stalecheck");
    }

    private static ScanSpec spec(Project project, SourceSet sourceSet) {
        Callable<Object> sourceDirs = () -> {
            Set<File> dirs = new LinkedHashSet<>(sourceSet.getAllSource().getSrcDirs());
            dirs.removeAll(sourceSet.getResources().getSrcDirs());
            return dirs;
        };
        return new ScanSpec(sourceSet.getName(), sourceSet.getOutput().getClassesDirs(),
                sourceSet.getCompileClasspath(), project.files(sourceDirs));
    }

    /**
     * The scanner binary for this platform as a Maven artifact of the plugin's own version,
     * {@code io.github.stalecheck:stalecheck-cli:VERSION:CLASSIFIER@exe}, in a detached
     * configuration resolved from the project's repositories when a task runs. Not looked up when
     * {@code executable} or {@code STALECHECK} names the binary.
     */
    static Scanner scanner(Project project, String executable) {
        String classifier = Platform.classifier();
        String coordinates = classifier == null ? null : Platform.coordinates(version(), classifier);
        String env = System.getenv(Binary.ENV);
        if (coordinates == null || executable != null || (env != null && !env.trim().isEmpty())) {
            return new Scanner(coordinates, null);
        }
        Configuration configuration =
                project.getConfigurations().detachedConfiguration(project.getDependencies().create(coordinates));
        configuration.setTransitive(false);
        return new Scanner(coordinates, project.files(configuration));
    }

    /** The plugin's version (written by build.sh from the workspace's Cargo.toml): the scanner's version. */
    static String version() {
        Properties properties = new Properties();
        try (InputStream in = StaleCheckPlugin.class.getResourceAsStream("stalecheck-plugin.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new GradleException("stalecheck: cannot read the plugin's version: " + e.getMessage(), e);
        }
        String version = properties.getProperty("version");
        if (version == null || version.trim().isEmpty()) {
            throw new GradleException("stalecheck: the plugin jar has no version (stalecheck-plugin.properties); build it with build.sh");
        }
        return version.trim();
    }

    /** Every project's main source set's source directories (no resources), in project order. */
    private static List<File> mainSourceDirs(Project root) {
        List<File> dirs = new ArrayList<>();
        for (Project p : root.getAllprojects()) {
            if (!p.getPluginManager().hasPlugin("java")) {
                continue;
            }
            SourceSet main = sourceSets(p).findByName(SourceSet.MAIN_SOURCE_SET_NAME);
            if (main != null) {
                Set<File> src = new LinkedHashSet<>(main.getAllSource().getSrcDirs());
                src.removeAll(main.getResources().getSrcDirs());
                dirs.addAll(src);
            }
        }
        return dirs;
    }

    static String taskName(SourceSet sourceSet) {
        String name = sourceSet.getName();
        return AGGREGATE + Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /** Gradle 7+ registers {@code sourceSets} as an extension; older versions only as a convention property. */
    private static SourceSetContainer sourceSets(Project project) {
        SourceSetContainer container = project.getExtensions().findByType(SourceSetContainer.class);
        if (container == null) {
            container = (SourceSetContainer) project.property("sourceSets");
        }
        return container;
    }

    private static File buildDir(Project project) {
        return project.getLayout().getBuildDirectory().get().getAsFile();
    }

    /** A relative path with a separator is resolved against the project directory; a bare name is looked up on PATH. */
    private static String executable(Project project, StaleCheckExtension extension) {
        String exe = extension.getExecutable();
        if (exe == null || exe.trim().isEmpty()) {
            return null;
        }
        exe = exe.trim();
        if ((exe.contains("/") || exe.contains(File.separator)) && !new File(exe).isAbsolute()) {
            return project.file(exe).getAbsolutePath();
        }
        return exe;
    }

    private static void afterEvaluate(Project project, Runnable action) {
        if (project.getState().getExecuted()) {
            action.run();
        } else {
            project.afterEvaluate(p -> action.run());
        }
    }

    /**
     * The world the scans analyse: {@code stalecheck { world }} when set; otherwise from the
     * build: the {@code application} plugin makes an application, {@code java-library} (or
     * {@code openWorld = true}) a library; {@code null} leaves it to the scanner.
     */
    static String world(Project project, StaleCheckExtension extension) {
        String world = extension.getWorld();
        if (world != null) {
            if (!world.equals("auto") && !world.equals("library") && !world.equals("application")) {
                throw new GradleException("stalecheck { world } is '" + world
                        + "': write 'library' (its public API is called from many threads), 'application' (its main"
                        + " methods are the programs) or 'auto'.");
            }
            return world;
        }
        if (extension.getOpenWorld()) {
            return "library";
        }
        if (project.getPlugins().hasPlugin("application")) {
            return "application";
        }
        if (project.getPlugins().hasPlugin("java-library")) {
            return "library";
        }
        return null;
    }
}
