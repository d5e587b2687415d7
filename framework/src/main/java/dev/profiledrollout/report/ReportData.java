package dev.profiledrollout.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.metrics.TimeSeries;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * One run directory read back from its files: {@code summary.json} (required), {@code requests.jsonl},
 * {@code timeseries.csv} and {@code latency.hlog} (each optional). Everything the HTML report and the charts show comes
 * from here, so the report of a JUnit test and {@code profiled-rollout report DIR} agree with {@code summary.json}.
 *
 * @param directory  the run directory, not null
 * @param summary    the parsed {@code summary.json}, not null
 * @param requests   per request, in file order; empty without {@code requests.jsonl}
 * @param timeSeries per second; empty without {@code timeseries.csv}
 * @param histograms by tag ({@code TTFT}, {@code ITL}, {@code TPOT}, {@code E2E}), values in ns; empty without
 *                   {@code latency.hlog}
 */
public record ReportData(Path directory, JsonNode summary, List<Request> requests, List<TimeSeries.Bucket> timeSeries,
                         Map<String, Histogram> histograms) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One line of {@code requests.jsonl}; times in ns from the earliest intended send, -1 when absent.
     *
     * @param sendNs  when the request was sent
     * @param ttftNs  time to first token, -1 without a first chunk
     * @param e2eNs   end-to-end latency, -1 for a failed request
     * @param error   the error kind, or null
     */
    public record Request(long sendNs, long ttftNs, long e2eNs, String error) {
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
        Path summaryFile = directory.resolve("summary.json");
        if (!Files.isRegularFile(summaryFile)) {
            throw new UncheckedIOException(new IOException("No summary.json in " + directory + ": point at a test's "
                    + "output directory, e.g. target/profiled-rollout/<Class>/<method>"));
        }
        try {
            JsonNode summary = JSON.readTree(summaryFile.toFile());
            return new ReportData(directory, summary, requests(directory.resolve("requests.jsonl")),
                    timeSeries(directory.resolve("timeseries.csv")), histograms(directory.resolve("latency.hlog")));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the run in " + directory + ": " + e.getMessage(), e);
        }
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
                JsonNode n = JSON.readTree(line);
                out.add(new Request(n.path("sendNs").asLong(), n.path("ttftNs").asLong(-1),
                        n.path("e2eNs").asLong(-1), n.path("error").isTextual() ? n.get("error").asText() : null));
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

    /** @return the test name from {@code summary.json}, or the directory name */
    public String testName() {
        return summary.path("test").asText(directory.getFileName().toString());
    }

    /** @return the verdicts in {@code summary.json} (empty before the test body ended) */
    public List<Verdict> verdicts() {
        List<Verdict> out = new ArrayList<>();
        for (JsonNode v : summary.path("verdicts")) {
            out.add(new Verdict(v.path("measure").asText(), v.path("relation").asText(), v.path("actual").asDouble(),
                    v.path("budget").asDouble(), v.path("unit").asText(""), v.path("actualText").asText(),
                    v.path("budgetText").asText(), v.path("passed").asBoolean()));
        }
        return out;
    }

    /**
     * @return kernels over all ranks sorted by total time, descending: {@code trace.kernels} when present, else summed
     *         from {@code trace.ranks[].kernels}
     */
    public List<Kernel> kernels() {
        JsonNode trace = summary.path("trace");
        Map<String, Kernel> byName = new LinkedHashMap<>();
        JsonNode source = trace.has("kernels") ? trace.get("kernels") : null;
        List<JsonNode> lists = new ArrayList<>();
        if (source != null) {
            lists.add(source);
        } else {
            trace.path("ranks").forEach(r -> lists.add(r.path("kernels")));
        }
        for (JsonNode list : lists) {
            for (JsonNode k : list) {
                Kernel add = new Kernel(k.path("name").asText(), k.path("count").asLong(), k.path("totalNs").asLong(),
                        k.path("minNs").asLong(), k.path("maxNs").asLong());
                byName.merge(add.name(), add, (a, b) -> new Kernel(a.name(), a.count() + b.count(),
                        a.totalNs() + b.totalNs(), Math.min(a.minNs(), b.minNs()), Math.max(a.maxNs(), b.maxNs())));
            }
        }
        return byName.values().stream().sorted(Comparator.comparingLong(Kernel::totalNs).reversed()
                .thenComparing(Kernel::name)).toList();
    }

    /** @return Σ kernel time over all ranks, ns ({@code trace.kernelTotalNs}); 0 without a trace */
    public long kernelTotalNs() {
        return summary.path("trace").path("kernelTotalNs").asLong(0);
    }

    /** @return per trace file in {@code trace.ranks} order, its GPU busy time */
    public List<RankBusy> rankBusy() {
        List<RankBusy> out = new ArrayList<>();
        for (JsonNode r : summary.path("trace").path("ranks")) {
            long busy = 0;
            long span = 0;
            for (JsonNode d : r.path("devices")) {
                busy += d.path("busyNs").asLong();
                span = Math.max(span, d.path("spanNs").asLong());
            }
            String label = r.path("rank").isObject() ? r.path("rank").path("label").asText() : r.path("file").asText();
            out.add(new RankBusy(label, busy, span));
        }
        return out;
    }

    /**
     * @return time by kernel category over all ranks, ns, when the trace summary carries categories
     *         ({@code trace.ranks[].categories} as objects with {@code name} and {@code totalNs}); empty otherwise
     */
    public Map<String, Long> categories() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (JsonNode r : summary.path("trace").path("ranks")) {
            for (JsonNode c : r.path("categories")) {
                out.merge(c.path("name").asText(c.path("category").asText()), c.path("totalNs").asLong(), Long::sum);
            }
        }
        return out;
    }
}
