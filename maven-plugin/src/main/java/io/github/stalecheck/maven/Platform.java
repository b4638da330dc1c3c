package io.github.stalecheck.maven;

import java.util.Locale;

/**
 * The scanner binary's Maven coordinates for the running platform: published by
 * {@code packaging/publish-binary.sh} as {@code io.github.stalecheck:stalecheck-cli:VERSION:CLASSIFIER@exe},
 * the classifier named the way os-maven-plugin (and so protoc's artifacts) name platforms.
 */
final class Platform {
    static final String GROUP = "io.github.stalecheck";
    static final String ARTIFACT = "stalecheck-cli";

    private Platform() {}

    /** {@code linux-x86_64}, {@code osx-aarch_64}, {@code windows-x86_64}, ...; null for an unknown platform. */
    static String classifier() {
        String os = os(System.getProperty("os.name", ""));
        String arch = arch(System.getProperty("os.arch", ""));
        return os == null || arch == null ? null : os + "-" + arch;
    }

    static String os(String name) {
        String n = normalize(name);
        if (n.startsWith("linux")) {
            return "linux";
        }
        if (n.startsWith("macosx") || n.startsWith("osx") || n.startsWith("darwin")) {
            return "osx";
        }
        if (n.startsWith("windows")) {
            return "windows";
        }
        return null;
    }

    static String arch(String name) {
        String n = normalize(name);
        if (n.matches("^(x8664|amd64|ia32e|em64t|x64)$")) {
            return "x86_64";
        }
        if (n.matches("^(aarch64|arm64)$")) {
            return "aarch_64";
        }
        return null;
    }

    private static String normalize(String value) {
        return value.toLowerCase(Locale.US).replaceAll("[^a-z0-9]+", "");
    }

    /** {@code group:artifact:version:classifier@exe}. */
    static String coordinates(String version, String classifier) {
        return GROUP + ":" + ARTIFACT + ":" + version + ":" + classifier + "@exe";
    }
}
