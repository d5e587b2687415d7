package dev.profiledrollout.cli.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Expands the command line's PATH arguments into trace files. */
public final class TraceFiles {

    private TraceFiles() {
    }

    /** True for the names trace files have: {@code *.json} and {@code *.json.gz}. */
    public static boolean looksLikeTrace(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".json") || name.endsWith(".json.gz");
    }

    /**
     * Every regular {@code *.json} / {@code *.json.gz} file below {@code directory}, sorted by path.
     *
     * @throws IOException when the directory tree cannot be listed
     */
    public static List<Path> below(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            List<Path> files = new ArrayList<>(walk.filter(Files::isRegularFile).filter(TraceFiles::looksLikeTrace).toList());
            files.sort(null);
            return files;
        }
    }
}
