import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.StepTimeline;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Measures the streaming Kineto reader against a whole-file baseline in one JVM per mode (run by trace-reader.sh).
 *
 * <ul>
 *   <li>{@code generate SRC OUT COPIES}: writes a large trace by repeating SRC's traceEvents COPIES times, each copy
 *       shifted past the previous one in time.</li>
 *   <li>{@code streaming FILE}: {@code KinetoTraceReader.read}.</li>
 *   <li>{@code tree FILE}: the baseline — Jackson {@code readTree} of the whole file (what json.loads-based analysers
 *       such as HTA's default backend do), then the same per-kernel totals from the tree.</li>
 *   <li>{@code analyze FILE BYTES} and {@code analyze-set BYTES FILE...}: the full analysis of one file or of a rank
 *       set (run by {@code bench/analyze}); BYTES is the uncompressed size, for MiB/s.</li>
 * </ul>
 * {@code streaming} and {@code tree} print one line: {@code mode seconds peakHeapMiB kernelTotalNs}.
 */
public class TraceReaderBench {

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "generate" -> generate(Path.of(args[1]), Path.of(args[2]), Integer.parseInt(args[3]));
            case "streaming" -> measure("streaming", () -> KinetoTraceReader.read(Path.of(args[1])).kernelTotalNs());
            case "tree" -> measure("tree", () -> treeKernelTotal(Path.of(args[1])));
            case "analyze" -> analyze(Path.of(args[1]), Long.parseLong(args[2]));
            case "analyze-set" -> analyzeSet(java.util.Arrays.stream(args, 2, args.length).map(Path::of).toList(),
                    Long.parseLong(args[1]));
            default -> throw new IllegalArgumentException("mode: generate | streaming | tree | analyze | analyze-set");
        }
    }

    interface Work {
        long run() throws Exception;
    }

    static void measure(String mode, Work work) throws Exception {
        long start = System.nanoTime();
        long kernelTotalNs = work.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        System.out.printf(Locale.ROOT, "%s %.3f %.1f %d%n", mode, seconds, peak / 1048576.0, kernelTotalNs);
    }

    /**
     * Full analysis of one file, as a test or {@code analyze} gets it: every {@code TraceDetails} analysis (kernels,
     * categories, both temporal breakdowns, idle gaps, steps, launches, operators, roofline, stage kernels, per-stream
     * idle and queue length) plus the step timeline of the file's rank set. Prints seconds, MiB/s of JSON, the
     * reading thread's and the whole process's CPU time, and a few results.
     */
    static void analyze(Path file, long uncompressedBytes) throws Exception {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long process0 = processCpuNs();
        long start = System.nanoTime();
        TraceSummary s = KinetoTraceReader.read(file);
        StepTimeline timeline = TraceSet.of(List.of(s)).stepTimeline();
        double seconds = (System.nanoTime() - start) / 1e9;
        double parseCpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
        double processCpu = (processCpuNs() - process0) / 1e9;
        System.out.printf(Locale.ROOT, "analyze %.3f s wall, %.1f MiB/s of JSON, parsing thread CPU %.3f s, process CPU "
                        + "%.3f s; kernels %d, kernel total %d ns, busy %d ns, HTA idle %d ns, steps %d, operators %d, "
                        + "roofline ops %d, stream queues %d, timeline steps %d, warnings %s%n",
                seconds, uncompressedBytes / 1048576.0 / seconds, parseCpu, processCpu,
                s.kernelEvents(), s.kernelTotalNs(), s.busyNs(),
                s.details().htaCompatible().idleNs(), s.details().steps().size(), s.details().operators().size(),
                s.details().roofline().size(), s.details().streamQueues().size(), timeline.steps().size(),
                s.warnings());
    }

    /**
     * Full analysis of a rank set ({@code TraceSet.read}: the files in parallel, every analysis of {@link #analyze},
     * then the step timeline across the ranks). Prints seconds, MiB/s of JSON, process CPU time and a few results.
     */
    static void analyzeSet(List<Path> files, long uncompressedBytes) throws Exception {
        long process0 = processCpuNs();
        long start = System.nanoTime();
        TraceSet set = TraceSet.read(files);
        StepTimeline timeline = set.stepTimeline();
        double seconds = (System.nanoTime() - start) / 1e9;
        double processCpu = (processCpuNs() - process0) / 1e9;
        long kernels = set.traces().stream().mapToLong(TraceSummary::kernelEvents).sum();
        System.out.printf(Locale.ROOT, "analyze-set %.3f s wall, %.1f MiB/s of JSON, process CPU %.3f s on %d cores; "
                        + "ranks %d, kernels %d, timeline steps %d (matched %d, %s), max step gap %d ns%n",
                seconds, uncompressedBytes / 1048576.0 / seconds, processCpu,
                Runtime.getRuntime().availableProcessors(), set.traces().size(), kernels, timeline.steps().size(),
                timeline.matchedSteps(), timeline.matching(), timeline.maxGapNs());
    }

    static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static long treeKernelTotal(Path file) throws Exception {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file), 1 << 16)) {
            root = new ObjectMapper().readTree(in);
        }
        Map<String, Long> totals = new HashMap<>();
        for (JsonNode e : root.path("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && "kernel".equalsIgnoreCase(e.path("cat").asText())) {
                long durNs = new BigDecimal(e.path("dur").asText()).movePointRight(3).longValue();
                totals.merge(e.path("name").asText(), durNs, Long::sum);
            }
        }
        return totals.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Copies SRC's top-level object, with traceEvents repeated and shifted by the source's time span per copy. */
    static void generate(Path source, Path out, int copies) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(source))) {
            root = mapper.readTree(in);
        }
        JsonNode events = root.path("traceEvents");
        BigDecimal min = null;
        BigDecimal max = null;
        for (JsonNode e : events) {
            if (e.has("ts") && e.get("ts").isNumber()) {
                BigDecimal ts = e.get("ts").decimalValue();
                BigDecimal end = ts.add(e.has("dur") && e.get("dur").isNumber() ? e.get("dur").decimalValue()
                        : BigDecimal.ZERO);
                min = min == null || ts.compareTo(min) < 0 ? ts : min;
                max = max == null || end.compareTo(max) > 0 ? end : max;
            }
        }
        BigDecimal span = max.subtract(min).add(BigDecimal.ONE);
        JsonFactory factory = mapper.getFactory();
        try (OutputStream os = new GZIPOutputStream(Files.newOutputStream(out), 1 << 16);
             JsonGenerator g = factory.createGenerator(os, JsonEncoding.UTF8)) {
            g.setCodec(mapper);
            g.writeStartObject();
            root.properties().forEach(field -> {
                if (!field.getKey().equals("traceEvents")) {
                    try {
                        g.writeFieldName(field.getKey());
                        g.writeTree(field.getValue());
                    } catch (Exception ex) {
                        throw new RuntimeException(ex);
                    }
                }
            });
            g.writeArrayFieldStart("traceEvents");
            for (int c = 0; c < copies; c++) {
                BigDecimal shift = span.multiply(BigDecimal.valueOf(c));
                for (JsonNode e : events) {
                    if (c > 0 && e.has("ts") && e.get("ts").isNumber()) {
                        com.fasterxml.jackson.databind.node.ObjectNode copy = e.deepCopy();
                        copy.put("ts", e.get("ts").decimalValue().add(shift));
                        // Fresh correlation / External id / flow ids per copy, so join tables grow as in a real long trace.
                        long idShift = 10_000_000L * c;
                        if (copy.path("id").isIntegralNumber()) {
                            copy.put("id", copy.get("id").asLong() + idShift);
                        }
                        if (copy.get("args") instanceof com.fasterxml.jackson.databind.node.ObjectNode args) {
                            for (String key : new String[] {"correlation", "External id"}) {
                                if (args.path(key).isIntegralNumber()) {
                                    args.put(key, args.get(key).asLong() + idShift);
                                }
                            }
                        }
                        g.writeTree(copy);
                    } else {
                        g.writeTree(e);
                    }
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }
}
