package dev.profiledrollout.trace.roofline;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.ProfiledRolloutKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import org.apiguardian.api.API;

/**
 * A table of GPU peaks, looked up by the name a trace's {@code deviceProperties[].name} gives (for example
 * {@code "NVIDIA H100 80GB HBM3"} or {@code "AMD Instinct MI300X"}).
 *
 * <p>The built-in table ({@code dev/profiledrollout/trace/roofline/gpu-peaks.json}) holds the datasheet's dense matrix
 * peaks per compute precision and the HBM bandwidth of A100 (PCIe/SXM, 40/80 GB), H100 PCIe and SXM, H200, B200,
 * MI300X, MI325X, MI355X and V100 SXM2; each entry names its datasheet. {@link #defaults()} puts the entries of the
 * file named by the system property {@value ProfiledRolloutKeys#GPU_PEAKS_FILE} in front of them, for other parts
 * or other clocks. The file format:
 *
 * <pre>{@code
 * {"gpus": [{"id": "H100-SXM-700MHz", "match": ["H100 80GB HBM3"],
 *            "tflops": {"bf16": 600, "fp8": 1200}, "hbmTBps": 3.35, "source": "our measurement"}]}
 * }</pre>
 *
 * {@code match} lists case-insensitive substrings of the device name; the first entry with one that matches wins.
 * Precision keys are those of {@link OperatorRoofline#precision()} ({@code fp64, fp32, tf32, bf16, fp16, fp8, fp4,
 * int8}). Immutable and thread-safe.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class GpuPeaks {

    /**
     * One GPU's peaks.
     *
     * @param id      a short name, such as {@code H100-SXM}
     * @param match   case-insensitive substrings of {@code deviceProperties[].name} that select this entry
     * @param tflops  dense matrix peak per precision, TFLOPS/s (10¹² operations per second)
     * @param hbmTBps HBM bandwidth, TB/s (10¹² bytes per second), &gt; 0
     * @param source  where the figures come from
     */
    @API(status = EXPERIMENTAL, since = "0.1")
    public record Gpu(String id, List<String> match, Map<String, Double> tflops, double hbmTBps, String source) {
        public Gpu {
            Objects.requireNonNull(id, "id");
            match = List.copyOf(match);
            tflops = Map.copyOf(tflops);
            Objects.requireNonNull(source, "source");
        }

        /** The compute peak for a precision ({@code bf16}, …), TFLOPS/s, when the table has one. */
        public OptionalDouble peakTflops(String precision) {
            Double v = precision == null ? null : tflops.get(precision);
            return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
        }

        /**
         * The attainable TFLOPS/s at an arithmetic intensity (FLOP/byte): {@code min(peak, intensity × HBM TB/s)},
         * the roofline of Williams, Waterman and Patterson (CACM 52(4), 2009).
         */
        public OptionalDouble attainableTflops(String precision, double intensity) {
            OptionalDouble peak = peakTflops(precision);
            if (peak.isEmpty() || !(intensity > 0)) {
                return OptionalDouble.empty();
            }
            return OptionalDouble.of(Math.min(peak.getAsDouble(), intensity * hbmTBps));
        }
    }

    private static final String RESOURCE = "gpu-peaks.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final GpuPeaks BUILT_IN = loadBuiltIn();

    private final List<Gpu> gpus;

    private GpuPeaks(List<Gpu> gpus) {
        this.gpus = List.copyOf(gpus);
    }

    /** The built-in datasheet table only. */
    public static GpuPeaks builtIn() {
        return BUILT_IN;
    }

    /**
     * The built-in table behind the entries of the file named by the system property
     * {@value ProfiledRolloutKeys#GPU_PEAKS_FILE}, when it is set.
     *
     * @throws IllegalArgumentException when the file cannot be read or is not a peaks table (the message names the
     *                                  key and the file)
     */
    public static GpuPeaks defaults() {
        String file = System.getProperty(ProfiledRolloutKeys.GPU_PEAKS_FILE);
        if (file == null || file.isBlank()) {
            return BUILT_IN;
        }
        return load(Path.of(file.strip())).then(BUILT_IN);
    }

    /**
     * Reads a peaks table file (format above).
     *
     * @throws IllegalArgumentException when the file cannot be read or an entry lacks {@code id}, {@code match},
     *                                  {@code tflops} or a positive {@code hbmTBps}
     */
    public static GpuPeaks load(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the GPU peaks table " + file + " (set by "
                    + ProfiledRolloutKeys.GPU_PEAKS_FILE + "): " + e.getMessage(), e);
        }
    }

    /** This table's entries, then {@code fallback}'s. */
    public GpuPeaks then(GpuPeaks fallback) {
        List<Gpu> all = new ArrayList<>(gpus);
        all.addAll(fallback.gpus);
        return new GpuPeaks(all);
    }

    /** The entries, in lookup order. */
    public List<Gpu> gpus() {
        return gpus;
    }

    /** The first entry one of whose {@code match} substrings occurs in {@code deviceName}, ignoring case. */
    public Optional<Gpu> find(String deviceName) {
        if (deviceName == null || deviceName.isBlank()) {
            return Optional.empty();
        }
        String name = deviceName.toLowerCase(Locale.ROOT);
        for (Gpu gpu : gpus) {
            for (String m : gpu.match()) {
                if (name.contains(m.toLowerCase(Locale.ROOT))) {
                    return Optional.of(gpu);
                }
            }
        }
        return Optional.empty();
    }

    private static GpuPeaks loadBuiltIn() {
        try (InputStream in = GpuPeaks.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the resource " + RESOURCE + " is missing from the framework jar");
            }
            return parse(in, RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static GpuPeaks parse(InputStream in, String where) throws IOException {
        JsonNode root = JSON.readTree(in);
        JsonNode list = root == null ? null : root.get("gpus");
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException("the GPU peaks table " + where + " has no \"gpus\" array (set by "
                    + ProfiledRolloutKeys.GPU_PEAKS_FILE + "); see the GpuPeaks Javadoc for the format");
        }
        List<Gpu> gpus = new ArrayList<>();
        for (JsonNode g : list) {
            String id = g.path("id").asText("");
            JsonNode match = g.get("match");
            JsonNode tflops = g.get("tflops");
            double hbm = g.path("hbmTBps").asDouble(0);
            if (id.isEmpty() || match == null || !match.isArray() || tflops == null || !tflops.isObject()
                    || !(hbm > 0)) {
                throw new IllegalArgumentException("the GPU peaks table " + where + " has an entry without id, match,"
                        + " tflops or a positive hbmTBps: " + g + " (file set by " + ProfiledRolloutKeys.GPU_PEAKS_FILE
                        + ")");
            }
            List<String> m = new ArrayList<>();
            match.forEach(s -> m.add(s.asText()));
            Map<String, Double> t = new LinkedHashMap<>();
            tflops.fields().forEachRemaining(f -> t.put(f.getKey().toLowerCase(Locale.ROOT), f.getValue().asDouble()));
            gpus.add(new Gpu(id, m, t, hbm, g.path("source").asText("")));
        }
        return new GpuPeaks(gpus);
    }
}
