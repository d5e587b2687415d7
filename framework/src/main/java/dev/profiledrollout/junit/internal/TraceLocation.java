package dev.profiledrollout.junit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the engine writes a capture (a path on the server's filesystem, sent as SGLang's {@code output_dir}) and where
 * this machine reads it, and the copy into the test's {@code traces/} directory when the two differ.
 *
 * <ul>
 *   <li>Neither set (the embedded simulator, or an engine on this host): both are {@code <test output>/traces}.</li>
 *   <li>{@code profiledrollout.trace.dir} set: the server writes to {@code <trace.dir.server or trace.dir>/<run id>}
 *       and this machine reads {@code <trace.dir>/<run id>}, then copies into {@code traces/}.</li>
 *   <li>{@code @ProfiledRollout(outputDir)} set: the server writes there; this machine reads the same path, mapped
 *       from {@code trace.dir.server} to {@code trace.dir} when both are set.</li>
 * </ul>
 */
record TraceLocation(String serverPath, Path localPath, Path collectedPath) {

    static TraceLocation resolve(WindowSpec spec, Settings settings, Path outputDirectory) {
        Path collected = outputDirectory.resolve("traces");
        if (!spec.outputDir().isEmpty()) {
            String server = spec.outputDir();
            Path local = Path.of(server);
            if (settings.traceDir().isPresent() && settings.traceDirOnServer().isPresent()
                    && server.startsWith(settings.traceDirOnServer().get())) {
                local = Path.of(settings.traceDir().get() + server.substring(settings.traceDirOnServer().get().length()));
            }
            return new TraceLocation(server, local, collected);
        }
        if (settings.traceDir().isPresent()) {
            String runId = outputDirectory.getParent().getFileName() + "-" + outputDirectory.getFileName() + "-"
                    + System.currentTimeMillis();
            Path local = settings.traceDir().get().resolve(runId).toAbsolutePath();
            String serverRoot = settings.traceDirOnServer().orElse(settings.traceDir().get().toAbsolutePath().toString());
            String server = serverRoot.endsWith("/") ? serverRoot + runId : serverRoot + "/" + runId;
            return new TraceLocation(server, local, collected);
        }
        // Embedded, or an attached server on this host: it writes straight into traces/. A server on another host
        // needs profiledrollout.trace.dir on a shared filesystem.
        return new TraceLocation(collected.toString(), collected, collected);
    }

    /** Copies the files into {@code traces/} when they were read elsewhere; returns the paths to analyse. */
    List<Path> collect(List<Path> files) {
        if (localPath.toAbsolutePath().normalize().equals(collectedPath.toAbsolutePath().normalize())) {
            return files;
        }
        List<Path> copied = new ArrayList<>();
        try {
            Files.createDirectories(collectedPath);
            for (Path file : files) {
                Path target = collectedPath.resolve(file.getFileName().toString());
                Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                copied.add(target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not copy trace files from " + localPath + " to " + collectedPath, e);
        }
        return copied;
    }
}
