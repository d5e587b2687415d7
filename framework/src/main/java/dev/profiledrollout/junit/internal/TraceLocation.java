package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.OUTPUT_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_DIR_SERVER;

import dev.profiledrollout.Backend;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.trace.files.TraceFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

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
 *   <li>vLLM: the server writes to the {@code torch_profiler_dir} fixed at its start; this machine reads
 *       {@code profiledrollout.trace.dir} (required) and takes the files that were not there before the window.</li>
 * </ul>
 * With several SGLang engines each gets {@link #forWorker(int) its own sub-directory} {@code worker-<n>}, n the engine's
 * 1-based position in the router's worker order (the {@code worker-<n>} of its rank labels).
 */
record TraceLocation(String serverPath, Path localPath, Path collectedPath, String origin) {

    /**
     * @param embeddedTraceDir the embedded simulator's trace directory, when its backend fixes it at server start
     */
    static TraceLocation resolve(WindowSpec spec, Settings settings, Path outputDirectory,
            java.util.Optional<Path> embeddedTraceDir) {
        Path collected = outputDirectory.resolve("traces");
        BackendSupport support = BackendSupport.of(spec.backend());
        if (!support.tracesWhereRequested()) {
            if (embeddedTraceDir.isPresent()) {
                return new TraceLocation(embeddedTraceDir.get().toString(), embeddedTraceDir.get(), collected,
                        "the embedded " + support.displayName() + " simulator's trace directory under " + OUTPUT_DIR);
            }
            if (settings.traceDir().isEmpty()) {
                throw new ExtensionConfigurationException("backend = " + spec.backend() + " needs " + TRACE_DIR
                        + ": " + support.fixedTraceDirectory() + " as this machine sees it; with a different path on"
                        + " the server also set " + TRACE_DIR_SERVER);
            }
            Path local = settings.traceDir().get().toAbsolutePath();
            return new TraceLocation(settings.traceDirOnServer().orElse(local.toString()), local, collected,
                    TRACE_DIR + "=" + settings.traceDir().get());
        }
        if (!spec.outputDir().isEmpty()) {
            String server = spec.outputDir();
            Path local = Path.of(server);
            if (settings.traceDir().isPresent() && settings.traceDirOnServer().isPresent()
                    && server.startsWith(settings.traceDirOnServer().get())) {
                local = Path.of(settings.traceDir().get() + server.substring(settings.traceDirOnServer().get().length()));
            }
            return new TraceLocation(server, local, collected, "@ProfiledRollout(outputDir = \"" + server + "\")");
        }
        if (settings.traceDir().isPresent()) {
            String runId = outputDirectory.getParent().getFileName() + "-" + outputDirectory.getFileName() + "-"
                    + System.currentTimeMillis();
            Path local = settings.traceDir().get().resolve(runId).toAbsolutePath();
            String serverRoot = settings.traceDirOnServer().orElse(settings.traceDir().get().toAbsolutePath().toString());
            String server = serverRoot.endsWith("/") ? serverRoot + runId : serverRoot + "/" + runId;
            return new TraceLocation(server, local, collected, TRACE_DIR + "=" + settings.traceDir().get());
        }
        // Embedded, or an attached server on this host: it writes straight into traces/. A server on another host
        // needs profiledrollout.trace.dir on a shared filesystem.
        return new TraceLocation(collected.toString(), collected, collected, "traces/ under " + OUTPUT_DIR);
    }

    /**
     * Where engine number {@code number} (1-based, router order) of a window with {@code workers} engines writes: its
     * own sub-directory {@link #forWorker(int) worker-<number>} when several SGLang engines share this location, since
     * SGLang's file names carry no host ({@code <profile_id>-TP-<rank>…}, sgl-project/sglang
     * {@code python/sglang/srt/managers/scheduler_profiler_mixin.py}); else this location. vLLM has no per-request
     * {@code output_dir}: its directory is the {@code torch_profiler_dir} fixed at server start
     * (vllm-project/vllm {@code vllm/profiler/wrapper.py}).
     */
    TraceLocation ofWorker(int number, int workers, Backend backend) {
        return workers > 1 && BackendSupport.of(backend).tracesWhereRequested() ? forWorker(number) : this;
    }

    /**
     * Creates the local directory, except a vLLM one outside {@code outputDirectory}: that is the server's
     * {@code torch_profiler_dir}, which exists as long as the server does.
     *
     * @throws IOException when it cannot be created
     */
    void prepare(Backend backend, Path outputDirectory) {
        boolean ours = BackendSupport.of(backend).tracesWhereRequested() || localPath.startsWith(outputDirectory);
        try {
            if (ours) {
                Files.createDirectories(localPath);
            } else if (!Files.isDirectory(localPath)) {
                throw new java.nio.file.NoSuchFileException(localPath.toString(), null, "no such directory: "
                        + BackendSupport.of(backend).fixedTraceDirectory() + " must exist on this machine too (a"
                        + " shared filesystem)");
            }
            if (!Files.isWritable(localPath) && ours) {
                throw new java.nio.file.AccessDeniedException(localPath.toString(), null, "not writable by this user");
            }
        } catch (IOException e) {
            throw new ExtensionConfigurationException("The trace directory " + localPath.toAbsolutePath() + " ("
                    + origin + ") cannot be used: " + osError(e) + ". Create it and make it writable, or point "
                    + (origin.startsWith("traces/") ? OUTPUT_DIR : TRACE_DIR) + " at a directory that is", e);
        }
    }

    /** The OS's words for an I/O failure: {@code AccessDeniedException: /x: Permission denied}. */
    static String osError(IOException e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** The sub-directory {@code worker-<number>} of this location, on the server, locally and under {@code traces/}. */
    TraceLocation forWorker(int number) {
        String name = "worker-" + number;
        String server = serverPath.endsWith("/") ? serverPath + name : serverPath + "/" + name;
        return new TraceLocation(server, localPath.resolve(name), collectedPath.resolve(name), origin);
    }

    /**
     * @return the paths, relative to the local directory, of every file in it and its direct sub-directories now
     *         (a vLLM directory is shared between windows)
     */
    Set<String> existingNames() {
        return TraceFiles.snapshot(localPath);
    }

    /**
     * Copies the rank files, and the frontend traces and {@code profiler_out_*.txt} tables of the same capture (those
     * not in {@code before}), into {@code traces/} when they were read elsewhere. A vLLM rank file whose name has no
     * rank ({@code <host>_<pid>.<ns>…}) is collected as {@code <host>_<pid>_rank<r>.<ns>…} with {@code r} from its
     * {@code distributedInfo.rank}.
     *
     * @return the rank files and frontend traces where they now are; the tables are only copied
     */
    ProfilerCapture.Collected collect(List<Path> files, Set<String> before) {
        boolean inPlace = localPath.toAbsolutePath().normalize().equals(collectedPath.toAbsolutePath().normalize());
        try {
            Files.createDirectories(collectedPath);
            List<Path> ranks = new ArrayList<>();
            for (Path file : files) {
                ranks.add(place(file, TraceFiles.keptName(file), inPlace));
            }
            List<Path> frontend = new ArrayList<>();
            for (Path file : TraceFiles.frontendTraces(localPath, before)) {
                frontend.add(place(file, file.getFileName().toString(), inPlace));
            }
            for (Path file : TraceFiles.profilerTables(localPath, before)) {
                place(file, file.getFileName().toString(), inPlace);
            }
            return new ProfilerCapture.Collected(ranks, frontend);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not collect trace files from " + localPath + " into " + collectedPath
                    + ": " + e.getMessage(), e);
        }
    }

    /** Into {@code traces/}, keeping the sub-directory ({@code worker-<n>/}) the file was found in. */
    private Path place(Path file, String name, boolean inPlace) throws IOException {
        Path relativeDir = file.getParent() == null ? null : localPath.relativize(file.getParent());
        Path dir = relativeDir == null || relativeDir.toString().isEmpty() || relativeDir.startsWith("..")
                ? collectedPath : collectedPath.resolve(relativeDir);
        Files.createDirectories(dir);
        Path target = dir.resolve(name);
        if (inPlace) {
            return name.equals(file.getFileName().toString()) ? file
                    : Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
    }
}
