package io.github.stalecheck.gradle;

import org.gradle.api.file.FileCollection;

/**
 * The scanner binary as a Maven artifact: its coordinates for the running platform (null when no
 * binary is published for it) and the detached configuration that resolves it from the project's
 * repositories (null when the {@code executable} setting or {@code STALECHECK} overrides it, so a
 * build that names its binary needs no repository). Held by the tasks as a plain file collection,
 * resolved only when a task runs.
 */
final class Scanner {
    final String coordinates;
    final FileCollection files;

    Scanner(String coordinates, FileCollection files) {
        this.coordinates = coordinates;
        this.files = files;
    }
}
