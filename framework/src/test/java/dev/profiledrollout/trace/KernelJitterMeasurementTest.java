package dev.profiledrollout.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Measures how much the duration of one kernel varies from launch to launch within one real trace, the basis of the
 * simulator's {@code SimulatorConfig.MEASURED_KERNEL_JITTER} (docs/TRACES.md §8). Prints the table the doc quotes.
 *
 * <p>Method. Kernels ({@code "ph":"X"}, category {@code kernel}) of one trace are grouped by name, {@code grid},
 * {@code block} and the {@code Input Dims} of the {@code cpu_op} with the same {@code External id} (absent for
 * kernels replayed from a CUDA graph): launches of one group do the same work. Groups count when they have at least
 * {@value #MIN_LAUNCHES} launches, a median of at least {@value #MIN_MEDIAN_US} µs (the HTA training traces time
 * in whole µs, so shorter kernels are mostly rounding) and are not NCCL communication (its duration includes the
 * wait for the peers, not the GPU's own speed). Per group: the sample standard deviation of ln(duration) after
 * dropping the shortest and longest 5 % (a few outliers, e.g. a preempted launch, would otherwise dominate). Per
 * trace: the median over its groups. The project's own reader keeps no per-launch grid, so this reads the events
 * with Jackson directly.
 */
class KernelJitterMeasurementTest {

    static final int MIN_LAUNCHES = 10;
    static final double MIN_MEDIAN_US = 10;

    record Spread(String trace, int groups, int launches, double medianSigma, double minSigma, double maxSigma) {
    }

    static Spread measure(Path file) throws IOException {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            root = new ObjectMapper().readTree(in);
        }
        JsonNode events = root.isArray() ? root : root.path("traceEvents");
        Map<Long, String> opDims = new HashMap<>();
        for (JsonNode e : events) {
            if ("X".equals(e.path("ph").asText()) && "cpu_op".equals(e.path("cat").asText())
                    && e.path("args").has("External id")) {
                opDims.put(e.path("args").path("External id").asLong(), e.path("args").path("Input Dims").toString());
            }
        }
        Map<String, List<Double>> groups = new LinkedHashMap<>();
        for (JsonNode e : events) {
            if (!"X".equals(e.path("ph").asText()) || !"kernel".equalsIgnoreCase(e.path("cat").asText())) {
                continue;
            }
            double dur = e.path("dur").asDouble(0);
            String name = e.path("name").asText();
            if (dur <= 0 || name.startsWith("nccl")) {
                continue;
            }
            JsonNode args = e.path("args");
            String key = name + "|" + args.path("grid") + "|" + args.path("block") + "|"
                    + (args.has("External id") ? opDims.get(args.path("External id").asLong()) : null);
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(dur);
        }
        List<Double> sigmas = new ArrayList<>();
        int launches = 0;
        for (List<Double> durations : groups.values()) {
            double[] d = durations.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            if (d.length < MIN_LAUNCHES || d[d.length / 2] < MIN_MEDIAN_US) {
                continue;
            }
            int trim = d.length / 20;
            double[] logs = Arrays.stream(d, trim, d.length - trim).map(Math::log).toArray();
            double mean = Arrays.stream(logs).average().orElseThrow();
            double var = Arrays.stream(logs).map(l -> (l - mean) * (l - mean)).sum() / (logs.length - 1);
            sigmas.add(Math.sqrt(var));
            launches += d.length;
        }
        if (sigmas.isEmpty()) {
            return new Spread(file.getFileName().toString(), 0, 0, Double.NaN, Double.NaN, Double.NaN);
        }
        double[] s = sigmas.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        return new Spread(file.getFileName().toString(), s.length, launches, median, s[0], s[s.length - 1]);
    }

    @Test
    void the_repository_traces_show_a_few_percent_of_launch_to_launch_jitter() throws IOException {
        List<Spread> spreads = new ArrayList<>();
        for (Path file : TestTraces.jsonTraces()) {
            spreads.add(measure(file));
        }
        System.out.println("| trace | kernel groups | launches | median sigma of ln(dur) | min | max |");
        System.out.println("|---|---|---|---|---|---|");
        for (Spread s : spreads) {
            System.out.printf(java.util.Locale.ROOT, "| %s | %d | %d | %.4f | %.4f | %.4f |%n", s.trace(), s.groups(),
                    s.launches(), s.medianSigma(), s.minSigma(), s.maxSigma());
        }
        List<Spread> measured = spreads.stream().filter(s -> s.groups() >= 5).toList();
        // The traces with enough repeated launches: the V100 ResNet, the six-stream training rank, the SGLang decode.
        assertThat(measured).extracting(Spread::trace).contains("sglang_Qwen3-8B_decode.json.gz",
                "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "rank0.json.gz");
        // Every such trace's median lies in 0.5 %..6 %, and the simulator's constant lies within their range.
        assertThat(measured).allSatisfy(s -> assertThat(s.medianSigma()).isBetween(0.005, 0.06));
        double lo = measured.stream().mapToDouble(Spread::medianSigma).min().orElseThrow();
        double hi = measured.stream().mapToDouble(Spread::medianSigma).max().orElseThrow();
        assertThat(dev.profiledrollout.simulator.SimulatorConfig.MEASURED_KERNEL_JITTER).isBetween(lo, hi);
    }
}
