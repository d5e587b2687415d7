package dev.profiledrollout.trace.files;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apiguardian.api.API;

/**
 * Which files of a profiler output directory belong to a capture, by {@link TraceFileName}'s rules, and the files
 * below a directory the analyze command reads.
 *
 * <p>A capture's files are those directly in its directory, or also one level down where the profiler writes one
 * sub-directory per worker ({@code worker-<i>/}), minus the files that were there before the capture started
 * ({@link #snapshot(Path)}): a vLLM {@code torch_profiler_dir} is fixed at server start and shared by every window.
 * Whether a file is complete is not decided here; a caller that must wait watches the sizes of what these methods
 * list.
 *
 * <p>Every listing is sorted by path and empty when the directory does not exist; a directory that cannot be listed
 * throws {@link UncheckedIOException}.
 */
@API(status = EXPERIMENTAL, since = "0.1.0")
public final class TraceFiles {

    private static final JsonFactory JSON = new JsonFactory();

    private TraceFiles() {
    }

    /**
     * @return the paths, relative to {@code directory}, of every regular file in it and in its direct
     *         sub-directories now; pass them as {@code before} to leave those files out of a later capture
     */
    public static Set<String> snapshot(Path directory) {
        return list(directory, 2, name -> true).stream().map(p -> directory.relativize(p).toString())
                .collect(Collectors.toSet());
    }

    /**
     * The per-rank traces of a capture ({@link TraceFileName#isRankTrace}: SGLang's merged trace included, vLLM's
     * frontend trace not).
     *
     * @param workerDirectories also look in the direct sub-directories (one per worker host)
     * @param before            paths relative to {@code directory} to leave out ({@link #snapshot(Path)})
     */
    public static List<Path> rankTraces(Path directory, boolean workerDirectories, Set<String> before) {
        return fresh(directory, workerDirectories ? 2 : 1, TraceFileName::isRankTrace, before).stream()
                .filter(p -> !isGraphCaptureTrace(directory, p)).toList();
    }

    /**
     * The directory vLLM's {@code capture_torch_profiler} writes into: rank 0's trace of CUDA-graph capture at start-up
     * (vllm-project/vllm {@code vllm/config/profiler.py}), not a rank of any window, so never counted as one.
     */
    public static final String GRAPH_CAPTURE_DIRECTORY = "capture_traces";

    /**
     * @return the traces vLLM's {@code capture_torch_profiler} wrote under {@code directory} (in
     *         {@value #GRAPH_CAPTURE_DIRECTORY}, at any depth up to a worker directory); they are not analysed
     */
    public static List<Path> graphCaptureTraces(Path directory) {
        return list(directory, 3, TraceFileName::isTrace).stream().filter(p -> isGraphCaptureTrace(directory, p))
                .toList();
    }

    private static boolean isGraphCaptureTrace(Path directory, Path file) {
        for (Path part : directory.relativize(file)) {
            if (part.toString().equals(GRAPH_CAPTURE_DIRECTORY)) {
                return true;
            }
        }
        return false;
    }

    /**
     * vLLM's frontend traces ({@link TraceFileName#isFrontend}) in {@code directory} and its direct sub-directories.
     *
     * @param before paths relative to {@code directory} to leave out ({@link #snapshot(Path)})
     */
    public static List<Path> frontendTraces(Path directory, Set<String> before) {
        return fresh(directory, 2, TraceFileName::isFrontend, before);
    }

    /**
     * vLLM's key-averages tables ({@link TraceFileName#isProfilerTable}) in {@code directory} and its direct
     * sub-directories.
     *
     * @param before paths relative to {@code directory} to leave out ({@link #snapshot(Path)})
     */
    public static List<Path> profilerTables(Path directory, Set<String> before) {
        return fresh(directory, 2, TraceFileName::isProfilerTable, before);
    }

    /**
     * Every regular file at any depth below {@code directory} that the analyze command reads from a directory
     * ({@link TraceFileName#isJson}), sorted by path.
     *
     * @throws IOException when the directory tree cannot be listed
     */
    public static List<Path> below(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            return walk.filter(Files::isRegularFile).filter(p -> TraceFileName.isJson(p.getFileName().toString()))
                    .sorted().toList();
        }
    }

    /**
     * The name a capture's rank trace is kept under: its own, except a vLLM trace whose name lacks the rank
     * ({@link TraceFileName#lacksRank}) is named with the rank its content gives ({@link #distributedRank}), so that
     * {@link TraceFileName#rank(String)} reads it.
     *
     * @throws IOException when such a trace cannot be read
     */
    public static String keptName(Path trace) throws IOException {
        String name = trace.getFileName().toString();
        if (!TraceFileName.lacksRank(name)) {
            return name;
        }
        OptionalInt rank = distributedRank(trace);
        return rank.isPresent() ? TraceFileName.withRank(name, rank.getAsInt()) : name;
    }

    /**
     * Reads {@code distributedInfo.rank} from the top level of a Kineto trace (gzip or plain), streaming and stopping
     * as soon as it is found. Torch writes {@code distributedInfo} when {@code torch.distributed} is initialised.
     *
     * @return the rank, or empty when the trace has no {@code distributedInfo.rank}
     * @throws IOException when the file cannot be read or is not JSON
     */
    public static OptionalInt distributedRank(Path trace) throws IOException {
        try (InputStream raw = Files.newInputStream(trace);
             InputStream in = trace.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
             JsonParser parser = JSON.createParser(in)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return OptionalInt.empty();
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("distributedInfo".equals(field) && value == JsonToken.START_OBJECT) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String inner = parser.currentName();
                        JsonToken innerValue = parser.nextToken();
                        if ("rank".equals(inner) && innerValue == JsonToken.VALUE_NUMBER_INT) {
                            return OptionalInt.of(parser.getIntValue());
                        }
                        parser.skipChildren();
                    }
                    return OptionalInt.empty();
                }
                parser.skipChildren();
            }
            return OptionalInt.empty();
        }
    }

    private static List<Path> fresh(Path directory, int depth, Predicate<String> kind, Set<String> before) {
        return list(directory, depth, kind).stream()
                .filter(p -> !before.contains(directory.relativize(p).toString())).toList();
    }

    private static List<Path> list(Path directory, int depth, Predicate<String> kind) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory, depth)) {
            return files.filter(Files::isRegularFile).filter(p -> kind.test(p.getFileName().toString())).sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not list trace directory " + directory, e);
        }
    }
}
