package dev.profiledrollout.recipe;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.profiledrollout.Backend;
import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.Phase;
import dev.profiledrollout.Profiler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The YAML binding of an srtctl recipe and its checks: Jackson reads the sections that matter into the records below
 * (field names as in srtctl's {@code src/srtctl/core/schema.py}, NVIDIA/srt-slurm), then {@link #parse} turns them
 * into a {@link SrtctlRecipe} or a {@link RecipeException} naming the field and the fix.
 *
 * <p>The profiling fields of every srtctl schema are known, from NVIDIA/srt-slurm's history of
 * {@code src/srtctl/core/schema.py} and {@code docs/profiling.md}: per-phase {@code isl/osl/concurrency/start_step/
 * stop_step} (commit a1a219a2), one unified set directly under {@code profiling} (0874fc88), the load under
 * {@code profiling} with per-phase steps and {@code aggregated} (7c166622), and the load moved to {@code benchmark}
 * (1d4cecc1, current, with {@code extra_nsys_args} and the {@code nsys-time} fields).
 */
final class RecipeYaml {

    /** srtctl's step defaults when a window gives none ({@code src/srtctl/benchmarks/scripts/lib/profiling.sh}). */
    static final int DEFAULT_START_STEP = 0;
    static final int DEFAULT_STOP_STEP = 50;

    private static final ObjectMapper MAPPER = YAMLMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            // isl: 1024.5 must not become 1024
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private RecipeYaml() {
    }

    /** The whole file; srtctl's launch sections are not bound. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record FileYaml(String name, ModelYaml model, ResourcesYaml resources, BackendYaml backend,
                    BenchmarkYaml benchmark, ProfilingYaml profiling) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record ModelYaml(String path, String container, String precision) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record ResourcesYaml(Integer prefillNodes, Integer decodeNodes, Integer prefillWorkers, Integer decodeWorkers,
                         Integer aggNodes, Integer aggWorkers) {

        /** srtctl's {@code ResourceConfig.is_disaggregated}. */
        boolean disaggregated() {
            return prefillNodes != null || decodeNodes != null;
        }
    }

    /** Only the type: the rest of {@code backend} is engine flags and environment for srtctl's launch. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record BackendYaml(String type) {
    }

    /** {@code concurrencies} is a list or an {@code "AxB"} string, {@code req_rate} {@code "inf"} or a number. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record BenchmarkYaml(String type, Integer isl, Integer osl, JsonNode concurrencies, JsonNode reqRate) {
    }

    /** Every field srtctl's profiling section has had, so that only misspellings are unknown. */
    record ProfilingYaml(String type, Integer isl, Integer osl, Integer concurrency, Integer startStep,
                         Integer stopStep, PhaseYaml prefill, PhaseYaml decode, PhaseYaml aggregated,
                         List<String> extraNsysArgs, Integer delaySecs, Integer durationSecs,
                         Integer benchmarkDurationSecs) {
    }

    record PhaseYaml(Integer startStep, Integer stopStep, Integer isl, Integer osl, Integer concurrency) {
    }

    static SrtctlRecipe parse(String yaml, String source) {
        JsonNode tree;
        FileYaml file;
        try {
            tree = MAPPER.readTree(yaml);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new RecipeException(source, null, "is not valid YAML" + where + ": " + e.getOriginalMessage(), e);
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw new RecipeException(source, null, "is empty; a recipe is a YAML mapping with a profiling: section",
                    null);
        }
        if (!tree.isObject()) {
            throw new RecipeException(source, null, "is a YAML " + tree.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
                    + ", not a mapping; a recipe is a mapping with a profiling: section", null);
        }
        if (tree.has("base")) {
            throw new RecipeException(source, "base", "is an srtctl override file (a base: section and override_*"
                    + " variants), which describes several jobs; expand it with `srtctl resolve-override -f <file>`"
                    + " and use one of the files it writes", null);
        }
        if (tree.has("sweep")) {
            throw new RecipeException(source, "sweep", "is an srtctl sweep (a sweep: section with {placeholders}),"
                    + " which describes several jobs; write out the one combination to profile without the sweep:"
                    + " section", null);
        }
        try {
            file = MAPPER.treeToValue(tree, FileYaml.class);
        } catch (JsonProcessingException e) {
            throw translate(source, e);
        }
        return new Checker(source, file, tree.path("benchmark")).recipe();
    }

    /** A Jackson binding failure as the YAML field and what it must be. */
    private static RecipeException translate(String source, JsonProcessingException e) {
        String field = e instanceof JsonMappingException m ? path(m) : null;
        if (e instanceof UnrecognizedPropertyException u) {
            String known = u.getKnownPropertyIds().stream().map(Object::toString)
                    .collect(Collectors.toCollection(TreeSet::new)).stream().collect(Collectors.joining(", "));
            return new RecipeException(source, field, field + " is not an srtctl field here (misspelt?); the fields"
                    + " of " + parent(field) + " are: " + known, e);
        }
        if (e instanceof InvalidFormatException f) {
            return new RecipeException(source, field, field + " must be " + describe(f.getTargetType()) + ", was \""
                    + f.getValue() + "\"", e);
        }
        if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            return new RecipeException(source, field, field + " must be " + describe(m.getTargetType()), e);
        }
        return new RecipeException(source, field, (field == null ? "" : field + ": ") + e.getOriginalMessage(), e);
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                path.append('[').append(r.getIndex()).append(']');
            }
        }
        return path.length() == 0 ? null : path.toString();
    }

    private static String parent(String field) {
        int dot = field == null ? -1 : field.lastIndexOf('.');
        return dot < 0 ? "the recipe" : field.substring(0, dot);
    }

    private static String describe(Class<?> type) {
        if (type == Integer.class || type == int.class) {
            return "a whole number";
        }
        if (type == String.class) {
            return "a string";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "a mapping";
    }

    /** The checks of one file, with the source for every message. */
    private static final class Checker {

        private final String source;
        private final FileYaml file;
        private final ProfilingYaml profiling;
        private final BenchmarkYaml benchmark;
        private final JsonNode benchmarkTree;
        /** {@code benchmark.concurrencies} as srtctl lists them, parsed once; null when absent. */
        private List<Integer> benchmarkConcurrencies;
        /** Whether some window took its concurrency from {@code benchmark.concurrencies}. */
        private boolean loadFromBenchmark;

        Checker(String source, FileYaml file, JsonNode benchmarkTree) {
            this.source = source;
            this.file = file;
            this.benchmarkTree = benchmarkTree;
            this.profiling = file.profiling();
            this.benchmark = file.benchmark() != null ? file.benchmark()
                    : new BenchmarkYaml(null, null, null, null, null);
        }

        SrtctlRecipe recipe() {
            if (profiling == null) {
                throw fail("profiling", "the recipe has no profiling: section; add one with type: torch (or nsys)"
                        + " and prefill:/decode: (or aggregated:) blocks of start_step and stop_step");
            }
            Backend backend = backend();
            Profiler profiler = profiler(backend);
            List<SrtctlRecipe.Window> windows = windows();
            checkStartSteps(BackendSupport.of(backend), profiling.type(), windows);
            ModelYaml m = file.model() != null ? file.model() : new ModelYaml(null, null, null);
            ResourcesYaml r = file.resources();
            List<Integer> sweep = loadFromBenchmark && benchmarkConcurrencies.size() > 1
                    ? benchmarkConcurrencies : List.of();
            return new SrtctlRecipe(source, file.name(), backend, profiler,
                    new SrtctlRecipe.Model(m.path(), m.container(), m.precision()),
                    r == null ? new SrtctlRecipe.Resources(null, null, null)
                            : new SrtctlRecipe.Resources(r.prefillWorkers(), r.decodeWorkers(), r.aggWorkers()),
                    windows, sweep, warnings());
        }

        /**
         * {@code benchmark} fields srtctl applies that a window against an attached engine does not: the engine-side
         * ones ({@code slow_down_*}: sa-bench's SGLang {@code /slow_down} on the decode workers, schema.py
         * {@code BenchmarkConfig}) and sa-bench's request-count and length-distribution knobs.
         */
        private List<String> warnings() {
            List<String> warnings = new ArrayList<>();
            for (String f : List.of("slow_down_sleep_time", "slow_down_wait_time")) {
                if (benchmarkTree.has(f)) {
                    warnings.add("benchmark." + f + " (" + benchmarkTree.get(f) + ") is not applied: srtctl's"
                            + " sa-bench sends SGLang's /slow_down to the decode workers, which changes the engine's"
                            + " behaviour and is the deployment's business against an attached engine; the captured"
                            + " steps are therefore not the steps srtctl's slow-down would give");
                }
            }
            for (String f : List.of("num_prompts_mult", "num_warmup_mult", "random_range_ratio", "dataset_name",
                    "dataset_path", "use_chat_template")) {
                if (benchmarkTree.has(f)) {
                    warnings.add("benchmark." + f + " (" + benchmarkTree.get(f) + ") is not applied: requests and"
                            + " warm-up come from --requests / @RolloutLoad, and prompts are random tokens of exactly"
                            + " isl/osl");
                }
            }
            return warnings;
        }

        private Backend backend() {
            String type = file.backend() == null || file.backend().type() == null ? "sglang" : file.backend().type();
            java.util.Optional<BackendSupport> support = BackendSupport.named(type);
            if (support.isPresent() && support.get().name().equals(type)) {
                return support.get().backend();
            }
            if (type.equals("mocker")) {
                throw fail("backend.type", "backend.type \"mocker\" cannot be profiled here: srtctl's mocker runs no"
                        + " engine, so there is no profiler to drive. Use a recipe with backend.type "
                        + BackendSupport.names().replace("|", ", "));
            }
            throw fail("backend.type", "backend.type \"" + type + "\" is not an srtctl backend; srtctl knows sglang"
                    + " (the default), vllm, trtllm and mocker, and windows here drive "
                    + BackendSupport.names().replace("|", ", "));
        }

        private Profiler profiler(Backend backend) {
            String type = profiling.type();
            if (type == null || type.equals("none")) {
                throw fail("profiling.type", "profiling.type is " + (type == null ? "missing, so srtctl's default"
                        + " \"none\" applies" : "\"none\"") + " and nothing would be profiled; set type: torch"
                        + " (PyTorch profiler) or type: nsys (Nsight Systems cudaProfilerApi capture)");
            }
            switch (type) {
                case "torch":
                    return Profiler.TORCH;
                case "nsys":
                    java.util.Optional<String> refused = BackendSupport.of(backend).refuseRecipeProfiler(type);
                    if (refused.isPresent()) {
                        throw fail("profiling.type", refused.get());
                    }
                    return Profiler.NSYS;
                case "nsys-time":
                    throw fail("profiling.type", "profiling.type nsys-time cannot be honoured: its capture is timed"
                            + " by nsys --delay/--duration when the workers are launched, not by a profile window."
                            + " Use type: nsys (cudaProfilerApi capture started by /start_profile) or type: torch");
                default:
                    throw fail("profiling.type", "profiling.type \"" + type + "\" is not a profiler; use torch or"
                            + " nsys (srtctl compares the lower-case names exactly)");
            }
        }

        /**
         * Accepts the placement of {@code isl/osl/concurrency} and of the steps only as one of srtctl's schemas had it
         * ({@code ProfilingConfig}/{@code ProfilingPhaseConfig} in {@code src/srtctl/core/schema.py}): per phase in
         * {@code prefill}/{@code decode} only, with nothing of the kind under {@code profiling} (a1a219a2); load and
         * steps directly under {@code profiling}, without phase blocks (0874fc88); load under {@code profiling} with
         * steps-only {@code prefill}/{@code decode}/{@code aggregated} blocks (7c166622); steps-only blocks with the load
         * in {@code benchmark} (1d4cecc1 to c88ef731). A mix of them is in no schema and would be refused by each.
         */
        private void checkSchemaShape() {
            String phaseLoad = null;
            for (String mode : List.of("prefill", "decode", "aggregated")) {
                PhaseYaml b = mode.equals("prefill") ? profiling.prefill()
                        : mode.equals("decode") ? profiling.decode() : profiling.aggregated();
                if (b != null && (b.isl() != null || b.osl() != null || b.concurrency() != null)) {
                    String field = "profiling." + mode + "." + (b.isl() != null ? "isl" : b.osl() != null ? "osl"
                            : "concurrency");
                    if (mode.equals("aggregated")) {
                        throw fail(field, field + " is in no srtctl schema: the load was per phase only in"
                                + " prefill:/decode: (schema of a1a219a2), which had no aggregated:. Put it in"
                                + " benchmark.isl/osl/concurrencies (the current schema)");
                    }
                    phaseLoad = phaseLoad == null ? field : phaseLoad;
                }
            }
            String profilingLoad = profiling.isl() != null ? "profiling.isl" : profiling.osl() != null
                    ? "profiling.osl" : profiling.concurrency() != null ? "profiling.concurrency" : null;
            String profilingSteps = profiling.startStep() != null ? "profiling.start_step"
                    : profiling.stopStep() != null ? "profiling.stop_step" : null;
            boolean blocks = profiling.prefill() != null || profiling.decode() != null
                    || profiling.aggregated() != null;
            if (phaseLoad != null && (profilingLoad != null || profilingSteps != null)) {
                String other = profilingLoad != null ? profilingLoad : profilingSteps;
                throw fail(other, other + " is set together with " + phaseLoad + "; no srtctl schema has both"
                        + " (per-phase load, a1a219a2, had nothing of the kind directly under profiling). Keep one:"
                        + " the load in benchmark.isl/osl/concurrencies and only start_step/stop_step per phase is"
                        + " the current schema");
            }
            if (profilingSteps != null && blocks) {
                throw fail(profilingSteps, profilingSteps + " is set together with prefill:/decode:/aggregated:"
                        + " blocks; srtctl had steps directly under profiling only without phase blocks"
                        + " (0874fc88). Give start_step and stop_step in each block");
            }
        }

        private List<SrtctlRecipe.Window> windows() {
            checkSchemaShape();
            boolean split = profiling.prefill() != null || profiling.decode() != null;
            boolean agg = profiling.aggregated() != null;
            if (split && agg) {
                throw fail("profiling.aggregated", "profiling.aggregated is set together with profiling."
                        + (profiling.prefill() != null ? "prefill" : "decode") + "; srtctl profiles either a"
                        + " disaggregated deployment (prefill: and decode:) or an aggregated one (aggregated:). Keep"
                        + " one kind");
            }
            ResourcesYaml resources = file.resources();
            if (resources != null && resources.disaggregated() && agg) {
                throw fail("profiling.aggregated", "profiling.aggregated is for aggregated deployments, but"
                        + " resources sets prefill_nodes/decode_nodes (disaggregated); use profiling.prefill and"
                        + " profiling.decode");
            }
            if (resources != null && !resources.disaggregated() && split) {
                throw fail(profiling.prefill() != null ? "profiling.prefill" : "profiling.decode",
                        "profiling.prefill/decode are for disaggregated deployments, but resources has neither"
                                + " prefill_nodes nor decode_nodes (aggregated); use profiling.aggregated, or set"
                                + " resources.prefill_nodes and resources.decode_nodes");
            }
            if (split && (profiling.prefill() == null || profiling.decode() == null)) {
                String missing = profiling.prefill() == null ? "prefill" : "decode";
                throw fail("profiling." + missing, "profiling." + missing + " is missing: srtctl requires both"
                        + " profiling.prefill and profiling.decode in a disaggregated deployment"
                        + " (SrtConfig._validate_profiling, src/srtctl/core/schema.py); add a " + missing
                        + ": block with start_step and stop_step");
            }
            List<SrtctlRecipe.Window> windows = new ArrayList<>();
            if (split) {
                if (profiling.prefill() != null) {
                    windows.add(window(Phase.PREFILL, profiling.prefill(), "profiling.prefill"));
                }
                if (profiling.decode() != null) {
                    windows.add(window(Phase.DECODE, profiling.decode(), "profiling.decode"));
                }
            } else if (agg) {
                windows.add(window(null, profiling.aggregated(), "profiling.aggregated"));
            } else if (resources != null && resources.disaggregated()) {
                // srtctl's unified schema of December 2025: one set of fields for both phases.
                windows.add(window(Phase.PREFILL, null, "profiling"));
                windows.add(window(Phase.DECODE, null, "profiling"));
            } else {
                windows.add(window(null, null, "profiling"));
            }
            return windows;
        }

        private SrtctlRecipe.Window window(Phase phase, PhaseYaml block, String key) {
            PhaseYaml b = block != null ? block : new PhaseYaml(null, null, null, null, null);
            Value start = first(key, "start_step", b.startStep(), profiling.startStep(), null, null);
            Value stop = first(key, "stop_step", b.stopStep(), profiling.stopStep(), null, null);
            int startStep = start == null ? DEFAULT_START_STEP : start.value();
            int stopStep = stop == null ? DEFAULT_STOP_STEP : stop.value();
            if (startStep < 0) {
                throw fail(start.field(), start.field() + " is " + startStep + "; it must be 0 (start with the next"
                        + " batch) or a positive scheduler step");
            }
            if (stopStep <= startStep) {
                String field = stop != null ? stop.field() : key + ".stop_step";
                throw fail(field, field + " is " + stopStep + (stop == null ? " (srtctl's default)" : "")
                        + " but start_step is " + startStep + "; srtctl sends num_steps = stop_step - start_step,"
                        + " so stop_step must be greater than start_step");
            }
            Value isl = required(key, "isl", b.isl(), profiling.isl(), benchmark.isl(), "benchmark.isl");
            Value osl = required(key, "osl", b.osl(), profiling.osl(), benchmark.osl(), "benchmark.osl");
            Value concurrency = first(key, "concurrency", b.concurrency(), profiling.concurrency(), null, null);
            if (concurrency == null) {
                concurrency = benchmarkConcurrency(key);
            }
            for (Value v : List.of(isl, osl, concurrency)) {
                if (v.value() < 1) {
                    throw fail(v.field(), v.field() + " is " + v.value() + "; it must be at least 1");
                }
            }
            return new SrtctlRecipe.Window(phase, startStep, stopStep, isl.value(), osl.value(), concurrency.value(),
                    requestRate());
        }

        /** The value and the field it came from, for messages. */
        private record Value(int value, String field) {
        }

        private Value first(String key, String name, Integer inBlock, Integer inProfiling, Integer inBenchmark,
                String benchmarkField) {
            if (inBlock != null) {
                return new Value(inBlock, key + "." + name);
            }
            if (inProfiling != null) {
                return new Value(inProfiling, "profiling." + name);
            }
            return inBenchmark != null ? new Value(inBenchmark, benchmarkField) : null;
        }

        private Value required(String key, String name, Integer inBlock, Integer inProfiling, Integer inBenchmark,
                String benchmarkField) {
            Value v = first(key, name, inBlock, inProfiling, inBenchmark, benchmarkField);
            if (v == null) {
                String field = key.equals("profiling") ? "profiling." + name : key + "." + name;
                throw fail(field, field + " is missing: give " + name + " in "
                        + (key.equals("profiling") ? "" : key + ", in ") + "profiling, or in " + benchmarkField
                        + " (srtctl's current schema takes the load from the benchmark section)");
            }
            return v;
        }

        private Value benchmarkConcurrency(String key) {
            JsonNode node = benchmark.concurrencies();
            String field = key.equals("profiling") ? "profiling.concurrency" : key + ".concurrency";
            if (node == null || node.isNull()) {
                throw fail(field, field + " is missing: give concurrency in " + (key.equals("profiling") ? ""
                        : key + ", in ") + "profiling, or benchmark.concurrencies");
            }
            if (benchmarkConcurrencies == null) {
                benchmarkConcurrencies = concurrencyList(node);
            }
            loadFromBenchmark = true;
            return new Value(benchmarkConcurrencies.get(0), "benchmark.concurrencies");
        }

        /**
         * srtctl's {@code BenchmarkConfig.get_concurrency_list}: a list as given, or an {@code "AxBxC"} string split
         * at {@code x} (a single number is a one-element list).
         */
        private List<Integer> concurrencyList(JsonNode node) {
            List<Integer> values = new ArrayList<>();
            try {
                if (node.isInt()) {
                    values.add(node.intValue());
                } else if (node.isArray()) {
                    for (JsonNode n : node) {
                        if (!n.isInt()) {
                            throw new NumberFormatException(n.toString());
                        }
                        values.add(n.intValue());
                    }
                } else if (node.isTextual()) {
                    for (String part : node.textValue().split("x", -1)) {
                        values.add(Integer.parseInt(part.strip()));
                    }
                } else {
                    throw new NumberFormatException(node.toString());
                }
            } catch (NumberFormatException e) {
                throw fail("benchmark.concurrencies", "benchmark.concurrencies must be a list of whole numbers or"
                        + " an \"AxB\" string, was " + node);
            }
            if (values.isEmpty()) {
                throw fail("benchmark.concurrencies", "benchmark.concurrencies is empty; list at least one"
                        + " concurrency");
            }
            for (int v : values) {
                if (v < 1) {
                    throw fail("benchmark.concurrencies", "benchmark.concurrencies lists " + v + " in " + values
                            + "; every concurrency must be at least 1");
                }
            }
            return List.copyOf(values);
        }

        /** {@code benchmark.req_rate}: sa-bench's {@code --request-rate}, {@code inf} by default. */
        private double requestRate() {
            JsonNode node = benchmark.reqRate();
            if (node == null || node.isNull()) {
                return Double.POSITIVE_INFINITY;
            }
            String text = node.isNumber() ? node.asText() : node.isTextual() ? node.textValue().strip() : "";
            double rate;
            try {
                rate = text.equals("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(text);
            } catch (NumberFormatException e) {
                rate = Double.NaN;
            }
            if (!(rate > 0) || Double.isNaN(rate)) {
                throw fail("benchmark.req_rate", "benchmark.req_rate must be \"inf\" (srtctl's default: a closed"
                        + " loop at the concurrency) or a positive number of requests/s, was " + node);
            }
            return rate;
        }

        /** The start steps the backend cannot take per window, named by the recipe's fields. */
        private void checkStartSteps(BackendSupport support, String type, List<SrtctlRecipe.Window> windows) {
            for (SrtctlRecipe.Window w : windows) {
                String field = (w.aggregated() ? "profiling.aggregated" : "profiling." + w.mode()) + ".start_step";
                java.util.Optional<String> refused = support.refuseRecipeStartStep(field, w.startStep(), type);
                if (refused.isPresent()) {
                    throw fail(field, refused.get());
                }
            }
        }

        private RecipeException fail(String field, String message) {
            return new RecipeException(source, Objects.requireNonNull(field), message, null);
        }
    }
}
