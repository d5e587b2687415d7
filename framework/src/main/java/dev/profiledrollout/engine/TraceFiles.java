package dev.profiledrollout.engine;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * What the files an engine's profiler leaves in its output directory are ({@code docs/PROTOCOLS.md} §1.4, §2.4):
 * per-rank traces, vLLM's CPU-only frontend trace, and vLLM's {@code profiler_out_<rank>.txt} key-average tables.
 *
 * <ul>
 *   <li>Rank trace: {@code *.trace.json[.gz]} other than a frontend file: SGLang {@code …-TP-0.trace.json.gz}, vLLM
 *       {@code dp0_pp0_tp0_dcp0_ep0_rank0.<ns>.pt.trace.json.gz}, {@code <id>-rank-0.<ns>…},
 *       {@code <host>_<pid>.<ns>…}.</li>
 *   <li>Frontend: {@code <host>_<pid>.async_llm.<ns>.pt.trace.json[.gz]}; CPU events only, never a rank.</li>
 *   <li>Profiler table: {@code profiler_out_<local_rank>.txt}.</li>
 * </ul>
 */
public final class TraceFiles {

    private static final Pattern VLLM_HOST_PID_NAME =
            Pattern.compile("^(?<worker>.+)\\.(?<ns>\\d+)\\.pt\\.trace\\.json(?<gz>\\.gz)?$");
    private static final Pattern PROFILER_TABLE = Pattern.compile("^profiler_out_\\d+\\.txt$");

    private TraceFiles() {
    }

    /** @return whether the name is a trace ({@code .trace.json} or {@code .trace.json.gz}) */
    public static boolean isTrace(String fileName) {
        return fileName.endsWith(".trace.json.gz") || fileName.endsWith(".trace.json");
    }

    /** @return whether the name is vLLM's frontend (API-server) trace, {@code ….async_llm.<ns>.pt.trace.json[.gz]} */
    public static boolean isFrontend(String fileName) {
        return isTrace(fileName) && fileName.contains(".async_llm.");
    }

    /** @return whether the name is a per-rank trace: a trace that is not a frontend file */
    public static boolean isRankTrace(String fileName) {
        return isTrace(fileName) && !isFrontend(fileName);
    }

    /** @return whether the name is vLLM's {@code profiler_out_<local_rank>.txt} key-averages table */
    public static boolean isProfilerTable(String fileName) {
        return PROFILER_TABLE.matcher(fileName).matches();
    }

    /**
     * Regular files directly in {@code directory} that satisfy {@code filter}, sorted by name.
     *
     * @return the files, empty when the directory does not exist
     * @throws UncheckedIOException when the directory cannot be listed
     */
    public static List<Path> list(Path directory, java.util.function.Predicate<String> filter) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Files::isRegularFile).filter(p -> filter.test(p.getFileName().toString())).sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not list trace directory " + directory, e);
        }
    }

    /**
     * Regular files in {@code directory} and in its direct sub-directories (one per worker host, e.g.
     * {@code worker-0/}) that satisfy {@code filter}, sorted by path.
     *
     * @return the files, empty when the directory does not exist
     * @throws UncheckedIOException when a directory cannot be listed
     */
    public static List<Path> listNested(Path directory, java.util.function.Predicate<String> filter) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory, 2)) {
            return files.filter(Files::isRegularFile).filter(p -> filter.test(p.getFileName().toString())).sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not list trace directory " + directory, e);
        }
    }

    /**
     * The name a v0.10-era vLLM worker trace ({@code <host>_<pid>.<ns>.pt.trace.json.gz}, no rank in the name) is
     * collected under once its rank is known: {@code <host>_<pid>_rank<r>.<ns>.pt.trace.json.gz}, which the §2.4 rank
     * regex reads.
     *
     * @return the new name, or the same name when it is not such a file
     */
    public static String withRank(String fileName, int rank) {
        Matcher m = VLLM_HOST_PID_NAME.matcher(fileName);
        if (!m.matches() || isFrontend(fileName)) {
            return fileName;
        }
        return m.group("worker") + "_rank" + rank + "." + m.group("ns") + ".pt.trace.json"
                + (m.group("gz") == null ? "" : ".gz");
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
             JsonParser parser = new JsonFactory().createParser(in)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return OptionalInt.empty();
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.getCurrentName();
                JsonToken value = parser.nextToken();
                if ("distributedInfo".equals(field) && value == JsonToken.START_OBJECT) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String inner = parser.getCurrentName();
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
}
