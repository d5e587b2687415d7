package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.metrics.TimeSeries;
import dev.profiledrollout.trace.CategoryStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.RankIdentity;
import dev.profiledrollout.trace.TraceSet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.apiguardian.api.API;

/**
 * One run directory read back from its files: {@code summary.json} (required), {@code requests.jsonl},
 * {@code timeseries.csv} and {@code latency.hlog} (each optional). Everything the HTML report and the charts show comes
 * from here, so the report of a JUnit test and {@code profiled-rollout report DIR} agree with {@code summary.json}.
 * The records in {@code summary.json} and the lines of {@code requests.jsonl} are read with the mapping that wrote them
 * ({@link ResultsModule}).
 *
 * @param directory  the run directory, not null
 * @param summary    the parsed {@code summary.json}, not null
 * @param requests   per request, in file order; empty without {@code requests.jsonl}
 * @param timeSeries per second; empty without {@code timeseries.csv}
 * @param histograms by tag ({@code TTFT}, {@code ITL}, {@code TPOT}, {@code E2E}), values in ns; empty without
 *                   {@code latency.hlog}
 * @param testName   {@code test} from {@code summary.json}, or the directory's name without it; not null
 * @param verdicts   {@code verdicts} from {@code summary.json}, empty before the test body ended; not null
 * @param trace      {@code trace} from {@code summary.json}, {@link Trace#NONE} without one; not null
 */
@API(status = INTERNAL, since = "0.1")
public record ReportData(Path directory, JsonNode summary, List<Request> requests, List<TimeSeries.Bucket> timeSeries,
                         Map<String, Histogram> histograms, String testName, List<Verdict> verdicts, Trace trace) {

    private static final ObjectMapper JSON = ResultsModule.MAPPER;

    public ReportData {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(summary, "summary");
        requests = List.copyOf(requests);
        timeSeries = List.copyOf(timeSeries);
        histograms = Collections.unmodifiableMap(new LinkedHashMap<>(histograms));
        Objects.requireNonNull(testName, "testName");
        verdicts = List.copyOf(verdicts);
        Objects.requireNonNull(trace, "trace");
    }

    /**
     * {@code summary.json}'s {@code trace}, as {@link RunReport} writes it.
     *
     * @param kernelTotalNs Σ kernel time over all ranks, ns
     * @param kernels       every kernel over all ranks, by total time descending; may be empty in a file that has
     *                      only {@code ranks}
     * @param ranks         one per trace file, labelled with its file name
     */
    public record Trace(long kernelTotalNs, List<KernelStats> kernels, List<LabeledTrace> ranks) {

        /** No trace was analysed. */
        public static final Trace NONE = new Trace(0, List.of(), List.of());

        public Trace {
            kernels = kernels == null ? List.of() : List.copyOf(kernels);
            ranks = ranks == null ? List.of() : List.copyOf(ranks);
        }
    }

    /** The parts of {@code summary.json} read as records; the rest stays in the tree. */
    private record Contents(String test, Trace trace) {
    }

    /**
     * One line of {@code requests.jsonl}; times in ns from the earliest intended send, -1 when absent.
     *
     * @param sendNs           when the request was sent
     * @param ttftNs           time to first token, -1 without a first chunk
     * @param e2eNs            end-to-end latency, -1 for a failed request
     * @param error            the error kind, or null
     * @param endNs            when the request ended (last chunk, or the failure); 0 in files that lack it
     * @param completionTokens output tokens the server reported; 0 when absent
     * @param chunks           content chunks received
     */
    public record Request(long sendNs, long ttftNs, long e2eNs, String error, long endNs, int completionTokens,
                          int chunks) {

        /** @return when the request ended: {@code endNs}, else send + E2E, else the send */
        public long end() {
            return endNs > 0 ? endNs : e2eNs >= 0 ? sendNs + e2eNs : sendNs;
        }

        /** @return output tokens: the server's count, else one per chunk */
        public int outputTokens() {
            return completionTokens > 0 ? completionTokens : chunks;
        }
    }

    /**
     * One kernel over all ranks (summed), as {@code summary.json}'s {@code trace.kernels} holds it.
     *
     * @param name    the kernel name
     * @param count   launches
     * @param totalNs Σ durations in ns
     * @param minNs   shortest launch in ns
     * @param maxNs   longest launch in ns
     */
    public record Kernel(String name, long count, long totalNs, long minNs, long maxNs) {
    }

    /**
     * One trace file's GPU busy time (Σ over its devices).
     *
     * @param label  the rank label (e.g. {@code TP-1}) or the file name
     * @param busyNs Σ busy time over the file's devices, ns
     * @param spanNs the longest device span, ns
     */
    public record RankBusy(String label, long busyNs, long spanNs) {
    }

    /**
     * Reads {@code directory}.
     *
     * @throws UncheckedIOException when {@code summary.json} is missing or a file cannot be parsed; the message names
     *                              the file
     */
    public static ReportData read(Path directory) {
        return read(directory, null);
    }

    /**
     * Reads {@code directory}, taking the verdicts from {@code verdicts} instead of its {@code summary.json} (a
     * phase's directory, whose verdicts are in the test's {@code phases[].verdicts}).
     *
     * @param verdicts a {@code verdicts} array, or null for the file's own
     * @throws UncheckedIOException as {@link #read(Path)}
     */
    public static ReportData read(Path directory, JsonNode verdicts) {
        Path summaryFile = directory.resolve("summary.json");
        if (!Files.isRegularFile(summaryFile)) {
            throw new UncheckedIOException(new IOException("No summary.json in " + directory + ": point at a test's "
                    + "output directory, e.g. target/profiled-rollout/<Class>/<method>"));
        }
        try {
            JsonNode summary;
            Contents contents;
            try {
                summary = JSON.readTree(summaryFile.toFile());
                contents = JSON.treeToValue(summary, Contents.class);
            } catch (IOException e) {
                throw new IOException(summaryFile.getFileName() + ": " + e.getMessage(), e);
            }
            return new ReportData(directory, summary, requests(directory.resolve("requests.jsonl")),
                    timeSeries(directory.resolve("timeseries.csv")), histograms(directory.resolve("latency.hlog")),
                    contents.test() == null ? directory.getFileName().toString() : contents.test(),
                    verdicts(verdicts == null ? summary.path("verdicts") : verdicts),
                    contents.trace() == null ? Trace.NONE : contents.trace());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the run in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param array a {@code verdicts} array of {@code summary.json}, or a missing node
     * @return its verdicts in order; an element lacking later fields (an older file: no {@code kind}, {@code scope},
     *         {@code unit}, {@code detail}, {@code gap} or {@code enforced}) gets {@code LATENCY}, {@code ""}, the gap
     *         computed from {@code actual} and {@code budget}, and enforced
     */
    static List<Verdict> verdicts(JsonNode array) {
        List<Verdict> out = new ArrayList<>();
        if (!array.isArray()) {
            return out;
        }
        for (JsonNode v : array) {
            ObjectNode filled = v.isObject() ? ((ObjectNode) v).deepCopy() : JSON.createObjectNode();
            for (String text : List.of("scope", "measure", "relation", "unit", "actualText", "budgetText", "detail")) {
                if (!filled.hasNonNull(text)) {
                    filled.put(text, "");
                }
            }
            if (!filled.hasNonNull("kind")) {
                filled.put("kind", Verdict.Kind.LATENCY.name());
            }
            if (!filled.has("gap")) {
                Double gap = Verdict.relativeGap(filled.path("actual").asDouble(Double.NaN),
                        filled.path("budget").asDouble(Double.NaN));
                if (gap != null) {
                    filled.put("gap", gap);
                }
            }
            if (!filled.hasNonNull("enforced")) {
                filled.put("enforced", true);
            }
            try {
                out.add(JSON.treeToValue(filled, Verdict.class));
            } catch (IOException | IllegalArgumentException e) {
                throw new UncheckedIOException(new IOException("summary.json: unreadable verdict " + v + ": "
                        + e.getMessage(), e));
            }
        }
        return out;
    }

    private static List<Request> requests(Path file) throws IOException {
        List<Request> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                out.add(JSON.readValue(line, Request.class));
            }
        }
        return out;
    }

    private static List<TimeSeries.Bucket> timeSeries(Path file) throws IOException {
        List<TimeSeries.Bucket> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length >= 6) {
                out.add(new TimeSeries.Bucket(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                        Integer.parseInt(f[3]), Long.parseLong(f[4]), Integer.parseInt(f[5]),
                        f.length >= 7 ? Double.parseDouble(f[6]) : Double.NaN));
            }
        }
        return out;
    }

    private static Map<String, Histogram> histograms(Path file) throws IOException {
        Map<String, Histogram> out = new LinkedHashMap<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        try (InputStream in = Files.newInputStream(file)) {
            HistogramLogReader reader = new HistogramLogReader(in);
            for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
                if (h instanceof Histogram histogram && histogram.getTag() != null) {
                    out.put(histogram.getTag(), histogram);
                }
            }
        }
        return out;
    }

    /**
     * @return kernels over all ranks sorted by total time, descending: {@code trace.kernels} when present, else merged
     *         by name from {@code trace.ranks[].kernels}
     */
    public List<Kernel> kernels() {
        List<KernelStats> kernels = !trace.kernels().isEmpty() ? trace.kernels()
                : TraceSet.of(trace.ranks().stream().map(LabeledTrace::summary).toList()).kernels();
        return kernels.stream().map(k -> new Kernel(k.name(), k.count(), k.totalNs(), k.minNs(), k.maxNs()))
                .sorted(Comparator.comparingLong(Kernel::totalNs).reversed().thenComparing(Kernel::name)).toList();
    }

    /** @return Σ kernel time over all ranks, ns ({@code trace.kernelTotalNs}); 0 without a trace */
    public long kernelTotalNs() {
        return trace.kernelTotalNs();
    }

    /**
     * @return per trace file in {@code trace.ranks} order, its GPU busy time; labelled with
     *         {@code trace.ranks[].label} (e.g. {@code worker-1/TP-0}), else the rank's label from the file name, else
     *         the file label
     */
    public List<RankBusy> rankBusy() {
        JsonNode nodes = summary.path("trace").path("ranks");
        List<RankBusy> out = new ArrayList<>();
        for (int i = 0; i < trace.ranks().size(); i++) {
            LabeledTrace r = trace.ranks().get(i);
            JsonNode label = nodes.path(i).path("label");
            out.add(new RankBusy(label.isTextual() && !label.asText().isEmpty() ? label.asText()
                    : r.summary().rank().map(RankIdentity::label).orElse(r.file()), r.summary().busyNs(),
                    r.summary().spanNs()));
        }
        return out;
    }

    /**
     * @return the straggler's label: {@code trace.straggler} when the file has that field (null there: none), else
     *         the busiest rank of {@link #rankBusy()}; empty with fewer than two ranks or when all are equally busy
     */
    public java.util.Optional<String> straggler() {
        List<RankBusy> ranks = rankBusy();
        if (ranks.size() < 2) {
            return java.util.Optional.empty();
        }
        JsonNode t = summary.path("trace");
        if (t.has("straggler")) {
            return t.get("straggler").isTextual() ? java.util.Optional.of(t.get("straggler").asText())
                    : java.util.Optional.empty();
        }
        long least = ranks.stream().mapToLong(RankBusy::busyNs).min().orElse(0);
        return ranks.stream().filter(r -> r.busyNs() > least).max(Comparator.comparingLong(RankBusy::busyNs))
                .map(RankBusy::label);
    }

    /** @return time by kernel category over all ranks ({@code trace.ranks[].categories}), ns; empty without any */
    public Map<String, Long> categories() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (LabeledTrace r : trace.ranks()) {
            for (CategoryStats c : r.summary().details().categories()) {
                out.merge(c.category().name(), c.totalNs(), Long::sum);
            }
        }
        return out;
    }
}
