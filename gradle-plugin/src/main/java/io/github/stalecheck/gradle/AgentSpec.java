package io.github.stalecheck.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code stalecheck { agent { } }} block: attaches the run-time agent to the project's
 * {@code test} tasks (the block being there turns it on). Plain bean properties, as in
 * {@link StaleCheckExtension}.
 */
public class AgentSpec {
    private boolean enabled;
    private String noise = "random";
    private int permille = 100;
    private int sleep = 1;
    private String mode = "sections";
    private boolean heal;
    private List<String> healSections = new ArrayList<>();
    private File jar;

    /** Set by the {@code agent { }} block; {@code enabled = false} turns it off again. */
    public boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@code none}, {@code random} (default), {@code variable} or {@code location}. */
    public String getNoise() {
        return noise;
    }

    public void setNoise(String noise) {
        this.noise = noise;
    }

    /** How often noise is injected when a section starts, per mille (default 100). */
    public int getPermille() {
        return permille;
    }

    public void setPermille(int permille) {
        this.permille = permille;
    }

    /** The noise's sleep in milliseconds (default 1; 0: a yield only). */
    public int getSleep() {
        return sleep;
    }

    public void setSleep(int sleep) {
        this.sleep = sleep;
    }

    /** {@code sections} (the scan's sections, default) or {@code full} (data races everywhere too). */
    public String getMode() {
        return mode;
    }

    public void setMode(String mode) {
        this.mode = mode;
    }

    /** Heal the sections of {@link #getHealSections()} (default false: never on by default). */
    public boolean getHeal() {
        return heal;
    }

    public void setHeal(boolean heal) {
        this.heal = heal;
    }

    /** Section ids (from the sections file) to heal when {@code heal = true}. */
    public List<String> getHealSections() {
        return healSections;
    }

    public void setHealSections(List<String> healSections) {
        this.healSections = healSections;
    }

    /** The agent jar; unset, {@code io.github.stalecheck:stalecheck-agent} of the plugin's version is resolved. */
    public File getJar() {
        return jar;
    }

    public void setJar(File jar) {
        this.jar = jar;
    }
}
