package dev.profiledrollout.cli;

import java.nio.file.Path;

/** The repository's real traces, {@code testdata/traces} (origin and licences in its README). */
final class TestTraces {

    private TestTraces() {
    }

    /** A file under the {@code test.traces} system property (set by surefire), else {@code ../testdata/traces}. */
    static Path resolve(String relative) {
        String property = System.getProperty("test.traces");
        Path root = property == null || property.isBlank() ? Path.of("..", "testdata", "traces") : Path.of(property);
        return root.toAbsolutePath().normalize().resolve(relative);
    }
}
