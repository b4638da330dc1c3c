package io.github.stalecheck.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The {@code stalecheck { }} block. Plain bean properties (no {@code Property<T>}): the lazy
 * property types changed between Gradle 4.4 and 9, plain getters and setters did not. The
 * plugin copies these values into its tasks after the project is evaluated.
 *
 * <p>Boolean getters are named {@code getX} (not {@code isX}) so that both DSLs write
 * {@code ignoreFailures = true}.
 */
public class StaleCheckExtension {
    private boolean ignoreFailures;
    private String failOn;
    private File baselineFile;
    private File configFile;
    private List<String> rules = new ArrayList<>();
    private boolean openWorld;
    private String world;
    private List<String> sourceSets = new ArrayList<>(Collections.singletonList("main"));
    private String executable;
    private boolean htmlReport = true;
    private boolean cache = true;
    private File cacheDir;
    private final AgentSpec agent = new AgentSpec();

    /** The run-time agent's settings ({@code agent { }}). */
    public AgentSpec getAgent() {
        return agent;
    }

    /** {@code agent { noise = 'random'; heal = false }}: attaches the run-time agent to the test tasks. */
    public void agent(org.gradle.api.Action<? super AgentSpec> action) {
        agent.setEnabled(true);
        action.execute(agent);
    }

    /**
     * Also write the HTML report next to each SARIF file ({@code build/reports/stalecheck/<sourceSet>.html});
     * default true.
     */
    public boolean getHtmlReport() {
        return htmlReport;
    }

    public void setHtmlReport(boolean htmlReport) {
        this.htmlReport = htmlReport;
    }

    /** Do not fail the build when findings at or above {@link #getFailOn()} are reported. */
    public boolean getIgnoreFailures() {
        return ignoreFailures;
    }

    public void setIgnoreFailures(boolean ignoreFailures) {
        this.ignoreFailures = ignoreFailures;
    }

    /** {@code error}, {@code warning} (the binary's default when unset), {@code note} or {@code none}. */
    public String getFailOn() {
        return failOn;
    }

    public void setFailOn(String failOn) {
        this.failOn = failOn;
    }

    /** Known findings (written by {@code staleBaseline}); only new findings fail the build. */
    public File getBaselineFile() {
        return baselineFile;
    }

    public void setBaselineFile(File baselineFile) {
        this.baselineFile = baselineFile;
    }

    /** A {@code stalecheck.toml}; unset, the binary searches from the root project directory upwards. */
    public File getConfigFile() {
        return configFile;
    }

    public void setConfigFile(File configFile) {
        this.configFile = configFile;
    }

    /** Rule ids to run; empty means all. */
    public List<String> getRules() {
        return rules;
    }

    public void setRules(List<String> rules) {
        this.rules = rules == null ? new ArrayList<String>() : new ArrayList<>(rules);
    }

    /** Treat every public method of a class that synchronizes as a concurrent entry point. */
    public boolean getOpenWorld() {
        return openWorld;
    }

    public void setOpenWorld(boolean openWorld) {
        this.openWorld = openWorld;
    }

    /**
     * What the project is, for the whole-program rules: {@code "library"} (its public API is called
     * from many threads), {@code "application"} (its mains are the programs) or {@code "auto"}.
     * Unset: {@code "application"} when the {@code application} plugin is applied, {@code "library"}
     * for {@code java-library}, otherwise the scanner decides ({@code auto}).
     */
    public String getWorld() {
        return world;
    }

    public void setWorld(String world) {
        this.world = world;
    }

    /** Source sets the aggregate {@code staleCheck} task (and {@code check}) runs; default {@code main}. */
    public List<String> getSourceSets() {
        return sourceSets;
    }

    public void setSourceSets(List<String> sourceSets) {
        this.sourceSets = sourceSets == null ? new ArrayList<String>() : new ArrayList<>(sourceSets);
    }

    /**
     * The {@code stalecheck} binary: a path or a command name. Unset: the {@code STALECHECK}
     * environment variable, else {@code stalecheck} on {@code PATH}.
     */
    public String getExecutable() {
        return executable;
    }

    public void setExecutable(String executable) {
        this.executable = executable;
    }

    /**
     * Use the scanner's summary cache (what it made of each dependency jar, reused while the jar
     * is unchanged; the findings are the same with or without it); default true.
     */
    public boolean getCache() {
        return cache;
    }

    public void setCache(boolean cache) {
        this.cache = cache;
    }

    /**
     * Where the summary cache lives. Unset: {@code <Gradle user home>/caches/stalecheck}, shared by
     * every build on the machine (and kept by CI caches of the Gradle user home). Not a task input:
     * the findings do not depend on it.
     */
    public File getCacheDir() {
        return cacheDir;
    }

    public void setCacheDir(File cacheDir) {
        this.cacheDir = cacheDir;
    }
}
