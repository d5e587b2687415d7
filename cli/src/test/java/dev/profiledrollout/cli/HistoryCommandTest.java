package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.Activity;
import dev.profiledrollout.Phase;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutPhase;
import dev.profiledrollout.RolloutSession;
import dev.profiledrollout.history.HistoryMetrics;
import dev.profiledrollout.history.HistoryStore;
import dev.profiledrollout.history.RunConfiguration;
import dev.profiledrollout.history.RunIdentity;
import dev.profiledrollout.history.RunRecord;
import dev.profiledrollout.history.RunRecords;
import dev.profiledrollout.junit.ProfiledTestKit;
import dev.profiledrollout.report.GoldenJson;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code history …} on a real SQLite file, with runs recorded through the store API or imported from directories. */
class HistoryCommandTest {

    static final String TEST = "com.acme.DecodeTest#decode";
    static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path dir;

    private String db;
    private final List<Long> ids = new ArrayList<>();

    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    static RunConfiguration configuration(int concurrency) {
        return new RunConfiguration("SGLANG", "attached", "0.5.2", "Qwen/Qwen3-8B", "NVIDIA H100 80GB HBM3", 2, 1, 1, 1,
                1024, 128, concurrency, Double.POSITIVE_INFINITY, 5, null, new TreeMap<>(Map.of("workers", "1")));
    }

    /** TTFT samples around {@code centreMs}, 200 of them, as a compressed histogram in ns. */
    static byte[] ttftHistogram(double centreMs, long seed) {
        Random random = new Random(seed);
        Histogram h = new Histogram(3);
        for (int i = 0; i < 200; i++) {
            h.recordValue((long) ((centreMs + random.nextGaussian() * 3) * 1e6));
        }
        return RunRecords.encode(h);
    }

    private long record(HistoryStore store, String testId, int minute, int concurrency, double ttftP99,
            double throughput, byte[] ttft) {
        RunIdentity identity = new RunIdentity(testId, T0.plusSeconds(60L * minute), "c0ffee" + minute, "main",
                null, null, "runner-1");
        TreeMap<String, Double> metrics = new TreeMap<>(Map.of("ttft.p99", ttftP99,
                "throughput.output_tokens", throughput, "kernel.category.GEMM.ms", 40.0 + minute % 2));
        return store.record(new RunRecord(0, identity, configuration(concurrency), "PASSED", metrics,
                ttft == null ? Map.of() : Map.of("ttft", ttft))).id();
    }

    /**
     * Ten runs of {@link #TEST} at concurrency 8: p99 TTFT steady near 100 ms for runs 1-8, then 150 ms (a shift);
     * one run of it at concurrency 16; one run of another test.
     */
    @BeforeEach
    void history() {
        Path file = dir.resolve("db/history.db");
        db = "jdbc:sqlite:" + file;
        double[] steady = {100.2, 99.1, 101.0, 100.4, 99.6, 100.9, 99.8, 100.1};
        try (HistoryStore store = HistoryStore.sqlite(file)) {
            for (int i = 0; i < steady.length; i++) {
                ids.add(record(store, TEST, i, 8, steady[i], 500 + i, ttftHistogram(80, i)));
            }
            ids.add(record(store, TEST, 8, 8, 150.3, 501, ttftHistogram(120, 8)));
            ids.add(record(store, TEST, 9, 8, 149.7, 499, ttftHistogram(120, 9)));
            ids.add(record(store, TEST, 10, 16, 180.0, 700, null));
            ids.add(record(store, "com.acme.PrefillTest#prefill", 11, 8, 300.0, 100, null));
        }
    }

    @Test
    void should_list_runs_newest_first_with_their_key_metrics() throws Exception {
        // WHEN
        int exit = run("history", "--db", db, "list", "--test", "DecodeTest", "--limit", "3");
        // THEN
        assertThat(exit).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).contains("id", "started", "test", "fingerprint", "commit", "outcome", "ttft.p99 (ms)",
                "throughput.output_tokens (tok/s)");
        assertThat(lines.get(1)).startsWith(ids.get(10) + " ").contains("2026-11-20T10:10:00Z", TEST, "c0ffee10",
                "PASSED", "180", "700", configuration(16).fingerprint());
        assertThat(lines.get(2)).startsWith(ids.get(9) + " ").contains("149.7");
        assertThat(lines.get(3)).startsWith(ids.get(8) + " ").contains("150.3");
        assertThat(out.toString()).doesNotContain("PrefillTest");
    }

    @Test
    void should_take_the_store_options_after_the_subcommand_and_print_csv_and_json() throws Exception {
        // WHEN the options follow the subcommand, and a glob selects the test
        int exit = run("history", "list", "--db", db, "--format", "csv", "--test", "*#prefill");
        // THEN
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString().lines().toList()).containsExactly(
                "id,started,test,fingerprint,commit,outcome,ttft.p99 (ms),itl.p99 (ms),e2e.p99 (ms),"
                        + "throughput.output_tokens (tok/s)",
                ids.get(11) + ",2026-11-20T10:11:00Z,com.acme.PrefillTest#prefill," + configuration(8).fingerprint()
                        + ",c0ffee11,PASSED,300,,,100");
        // AND as JSON
        assertThat(run("history", "list", "--db", db, "--format", "json", "--limit", "1")).isZero();
        JsonNode runs = json.readTree(out.toString()).path("runs");
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).path("id").asLong()).isEqualTo(ids.get(11));
        assertThat(runs.get(0).path("metrics").path("ttft.p99").asDouble()).isEqualTo(300.0);
    }

    @Test
    void should_show_a_run_with_its_configuration_fingerprint_metrics_and_histograms() throws Exception {
        // WHEN
        int exit = run("history", "--db", db, "show", String.valueOf(ids.get(0)));
        // THEN
        assertThat(exit).as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).containsPattern("run\\s+test\\s+" + TEST)
                .containsPattern("configuration\\s+fingerprint\\s+" + configuration(8).fingerprint())
                .containsPattern("configuration\\s+gpu\\s+NVIDIA H100 80GB HBM3")
                .containsPattern("configuration\\s+requestRate\\s+inf")
                .containsPattern("configuration\\s+extra.workers\\s+1")
                .containsPattern("metric\\s+ttft.p99\\s+100.2\\s+ms")
                .containsPattern("metric\\s+kernel.category.GEMM.ms\\s+40\\s+ms")
                .containsPattern("histogram\\s+ttft\\s+200\\s+samples");
        // AND as JSON
        assertThat(run("history", "--db", db, "--format", "json", "show", String.valueOf(ids.get(0)))).isZero();
        JsonNode show = json.readTree(out.toString());
        assertThat(show.path("configuration").path("concurrency").asText()).isEqualTo("8");
        assertThat(show.path("histograms").path("ttft").path("count").asLong()).isEqualTo(200);
        assertThat(show.path("identity").path("host").asText()).isEqualTo("runner-1");
    }

    @Test
    void should_name_an_unknown_run_id() {
        // WHEN
        int exit = run("history", "--db", db, "show", "999");
        // THEN
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("history show: no run 999 in jdbc:sqlite:", "`history list` shows the run ids");
    }

    /** Two top kernels of a real SGLang decode trace (Llama-3.1-8B, H100): the longer is 200 characters. */
    static final String LONG_KERNEL = "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
            + "flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::"
            + "C<128>, cute::C<128> > > > > >(flash::Params)";
    static final String GEMM_KERNEL = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"
            + "_execute_segment_k_off_kernel__5x_cublas";

    /** Runs with both kernels' times, a long test id and every default-gate metric, in a fresh store. */
    private String wideStore() {
        String url = "jdbc:sqlite:" + dir.resolve("wide/history.db");
        String test = "com.example.inference.regression.DecodeThroughputUnderLongPromptsRegressionTest"
                + "#decode_at_concurrency_64_with_4096_token_prompts_and_chunked_prefill";
        try (HistoryStore store = HistoryStore.open(url, null, null)) {
            for (int i = 0; i < 8; i++) {
                TreeMap<String, Double> metrics = new TreeMap<>(Map.of("tpot.mean", 8.0 + (i % 3) * 0.1,
                        "e2e.mean", 140.0 + i % 2, "kernel.decode.ms_per_step.bs16-31", 7.5 + (i >= 6 ? 3 : 0),
                        "kernel.extend.us_per_token", 21.0 + (i % 2) * 0.2,
                        HistoryMetrics.kernelMetric(LONG_KERNEL), 1234.5 + i,
                        HistoryMetrics.kernelMetric(GEMM_KERNEL), 987.25 * (i >= 6 ? 2 : 1)));
                TreeMap<String, String> names = new TreeMap<>(Map.of(HistoryMetrics.kernelMetric(LONG_KERNEL),
                        LONG_KERNEL, HistoryMetrics.kernelMetric(GEMM_KERNEL), GEMM_KERNEL));
                RunIdentity identity = new RunIdentity(test, T0.plusSeconds(60L * i), "0123456789abcdef" + i, "main",
                        null, null, "runner-1");
                store.record(new RunRecord(0, identity, configuration(64), "PASSED", metrics,
                        Map.of("ttft", ttftHistogram(80 + (i >= 6 ? 40 : 0), i)), names));
            }
        }
        return url;
    }

    private void assertFitsIn120Columns(String output) {
        assertThat(output.lines()).isNotEmpty().allSatisfy(line -> assertThat(line.length())
                .as("line of %d characters: %s", line.length(), line).isLessThanOrEqualTo(120));
    }

    @Test
    void should_fit_compare_in_120_columns_with_short_kernel_ids_and_their_legend() {
        String wide = wideStore();
        // WHEN
        int exit = run("history", "--db", wide, "compare", "1", "7");
        // THEN every line fits, the kernels are 19-character ids, and the legend under the table names them whole
        assertThat(exit).as(err.toString()).isZero();
        String text = out.toString();
        assertFitsIn120Columns(text);
        String longId = HistoryMetrics.kernelMetric(LONG_KERNEL);
        assertThat(longId).hasSize(19);
        assertThat(text).containsPattern(java.util.regex.Pattern.quote(HistoryMetrics.kernelMetric(GEMM_KERNEL))
                + "\\s+ms\\s+987.3\\s+1975\\s+\\+100.0 %\\s+relative\\s+REGRESSION");
        List<String> lines = text.lines().toList();
        int legend = lines.indexOf("kernels (metric id: full kernel name):");
        assertThat(legend).as(text).isPositive();
        assertThat(lines.subList(0, legend)).anyMatch(l -> l.startsWith(longId + " "));
        String legendText = String.join("\n", lines.subList(legend + 1, lines.size()));
        assertThat(legendText.replaceAll("\\s+", "")).contains(longId + ":" + LONG_KERNEL.replaceAll("\\s+", ""));
        assertThat(lines.subList(legend + 1, lines.size())).anyMatch(l -> l.startsWith("  " + longId + ": "))
                .anyMatch(l -> l.startsWith("  " + HistoryMetrics.kernelMetric(GEMM_KERNEL) + ": sm90_xmma_gemm"));
        // AND JSON carries the legend
        assertThat(run("history", "--db", wide, "--format", "json", "compare", "1", "7")).isZero();
        assertThat(out.toString()).contains("\"kernelNames\"").contains(GEMM_KERNEL);
    }

    @Test
    void should_fit_trend_in_120_columns_cutting_the_detail_and_naming_the_kernel() {
        String wide = wideStore();
        // WHEN the trend of a kernel id, the test named by part of its id, as in list
        int exit = run("history", "--db", wide, "trend", HistoryMetrics.kernelMetric(GEMM_KERNEL), "--test",
                "DecodeThroughputUnderLongPrompts");
        // THEN every line fits; the details that did not fit end in … and a line says so; the legend names the kernel
        assertThat(exit).as(err.toString()).isZero();
        String text = out.toString();
        assertFitsIn120Columns(text);
        assertThat(text).contains("REGRESSION <- change point", "…",
                "(… : cut to fit 120 columns; --format json or csv prints every cell whole)",
                "kernels (metric id: full kernel name):",
                "  " + HistoryMetrics.kernelMetric(GEMM_KERNEL) + ": sm90_xmma_gemm_bf16");
        assertThat(text.replaceAll("\\s+", "")).contains(HistoryMetrics.kernelMetric(GEMM_KERNEL) + ":" + GEMM_KERNEL);
        // AND the flagged runs' verdicts follow whole, wrapped
        assertThat(text).contains("run 7: REGRESSION:", "run 8: REGRESSION:");
        // AND the decode bucket and the old long id of a kernel read the same way; list takes the same --test
        assertThat(run("history", "--db", wide, "trend", "kernel.decode.ms_per_step.bs16-31", "--test",
                "DecodeThroughputUnderLongPrompts")).as(err.toString()).isZero();
        assertFitsIn120Columns(out.toString());
        assertThat(run("history", "--db", wide, "trend", "kernel.top." + LONG_KERNEL + ".ms", "--test",
                "DecodeThroughputUnderLongPrompts")).as(err.toString()).isZero();
        assertFitsIn120Columns(out.toString());
        assertThat(out.toString()).contains("1242", "  " + HistoryMetrics.kernelMetric(LONG_KERNEL) + ": ");
        assertThat(run("history", "--db", wide, "list", "--test", "DecodeThroughputUnderLongPrompts")).isZero();
        assertThat(out.toString().lines().count()).isEqualTo(9);
    }

    @Test
    void should_compare_two_runs_per_metric_and_their_ttft_samples_with_mann_whitney() throws Exception {
        // WHEN the steady run 1 is compared with the shifted run 9
        int exit = run("history", "--db", db, "compare", String.valueOf(ids.get(0)), String.valueOf(ids.get(8)));
        // THEN
        assertThat(exit).as(err.toString()).isZero();
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString())
                .containsPattern("ttft.p99\\s+ms\\s+100.2\\s+150.3\\s+\\+50.0 %\\s+relative\\s+REGRESSION")
                .containsPattern("throughput.output_tokens\\s+tok/s\\s+500\\s+501\\s+\\+0.2 %\\s+relative\\s+NO_CHANGE")
                .containsPattern("kernel.category.GEMM.ms\\s+ms\\s+40\\s+40\\s+\\+0.0 %\\s+relative\\s+NO_CHANGE")
                .containsPattern("ttft \\(samples\\)\\s+ms\\s+80.\\d* median\\s+120.\\d* median\\s+\\+\\d+.\\d %\\s+"
                        + "Mann-Whitney U, p = [0-9.e-]+\\s+REGRESSION");
        // AND the JSON form carries each verdict's description
        assertThat(run("history", "--db", db, "--format", "json", "compare", String.valueOf(ids.get(0)),
                String.valueOf(ids.get(8)))).isZero();
        JsonNode compare = json.readTree(out.toString());
        assertThat(compare.path("sameFingerprint").asBoolean()).isTrue();
        JsonNode samples = compare.path("metrics").get(3);
        assertThat(samples.path("metric").asText()).isEqualTo("ttft (samples)");
        assertThat(samples.path("pValue").asDouble()).isLessThan(0.01);
        assertThat(samples.path("test").asText()).isEqualTo("Mann-Whitney U");
        assertThat(samples.path("description").asText()).contains("z = ").contains("REGRESSION");
    }

    @Test
    void should_warn_when_compared_runs_have_different_fingerprints() throws Exception {
        // WHEN a concurrency-8 run is compared with the concurrency-16 run
        int exit = run("history", "--db", db, "compare", String.valueOf(ids.get(0)), String.valueOf(ids.get(10)));
        // THEN the table is printed, with a warning naming the differing field
        assertThat(exit).as(err.toString()).isZero();
        assertThat(err.toString()).contains("warning: runs " + ids.get(0) + " and " + ids.get(10)
                + " have different configuration fingerprints", "differing: concurrency 8 vs 16");
        assertThat(out.toString()).contains("ttft.p99").doesNotContain("ttft (samples)");
        assertThat(run("history", "--db", db, "--format", "json", "compare", String.valueOf(ids.get(0)),
                String.valueOf(ids.get(10)))).isZero();
        JsonNode compare = json.readTree(out.toString());
        assertThat(compare.path("sameFingerprint").asBoolean()).isFalse();
        assertThat(compare.path("configurationDifferences").path("concurrency").path("run2").asText()).isEqualTo("16");
        assertThat(compare.path("configurationDifferences").size()).isEqualTo(1);
    }

    @Test
    void should_mark_the_change_point_of_a_trend_with_the_t_test() throws Exception {
        // WHEN
        int exit = run("history", "--db", db, "--format", "json", "trend", "ttft.p99", "--test", TEST);
        // THEN the latest run's series (concurrency 16) is not the one with the shift: it has a note and one run
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains("\"fingerprint\" : \"" + configuration(16).fingerprint() + "\"");
        assertThat(out.toString()).contains("2 configuration fingerprints");
        // WHEN the concurrency-8 series is named
        // (the t-test named: by default a client metric such as p99 TTFT is judged by the relative floor alone)
        exit = run("history", "--db", db, "--format", "json", "trend", "ttft.p99", "--test", TEST,
                "--fingerprint", configuration(8).fingerprint(), "--threshold", "t-test");
        // THEN the first run has no history, the t-test flags the jump at run 9 and takes it as history at run 10
        assertThat(exit).as(err.toString()).isZero();
        ObjectNode trend = (ObjectNode) json.readTree(out.toString());
        assertThat(trend.remove("store").asText()).isEqualTo(db);
        GoldenJson.assertMatches(trend.toString(), "history-trend.json");
    }

    @Test
    void should_select_the_trend_s_test_by_part_of_its_id_as_list_does() throws Exception {
        // WHEN part of the id is given
        int exit = run("history", "--db", db, "--format", "json", "trend", "ttft.p99", "--test", "DecodeTest",
                "--fingerprint", configuration(8).fingerprint());
        // THEN it is the one test whose id contains it
        assertThat(exit).as(err.toString()).isZero();
        assertThat(json.readTree(out.toString()).path("testId").asText()).isEqualTo(TEST);
        // AND a part that several tests share is refused, naming them
        try (HistoryStore store = HistoryStore.sqlite(dir.resolve("db/history.db"))) {
            record(store, "com.acme.DecodeTest#other", 30, 8, 100, 500, null);
        }
        assertThat(run("history", "--db", db, "trend", "ttft.p99", "--test", "DecodeTest")).isNotZero();
        assertThat(err.toString()).contains("--test DecodeTest matches 2 tests: com.acme.DecodeTest#decode, "
                + "com.acme.DecodeTest#other");
    }

    @Test
    void should_list_the_e_divisive_change_point_of_the_shown_series() throws Exception {
        // GIVEN four more runs after the shift: 8 runs near 100 ms, then 6 near 150 ms
        try (HistoryStore store = HistoryStore.sqlite(dir.resolve("db/history.db"))) {
            double[] after = {150.8, 149.2, 150.1, 149.9};
            for (int i = 0; i < after.length; i++) {
                ids.add(record(store, TEST, 12 + i, 8, after[i], 500, null));
            }
        }
        // WHEN
        int exit = run("history", "--db", db, "--format", "json", "trend", "ttft.p99", "--test", TEST,
                "--fingerprint", configuration(8).fingerprint());
        // THEN one change point, at the first run near 150 ms
        assertThat(exit).as(err.toString()).isZero();
        JsonNode points = json.readTree(out.toString()).path("changePoints");
        assertThat(points).hasSize(1);
        assertThat(points.get(0).path("runId").asLong()).isEqualTo(ids.get(8));
        assertThat(points.get(0).path("index").asInt()).isEqualTo(8);
        assertThat(points.get(0).path("before").asDouble()).isBetween(99.0, 101.0);
        assertThat(points.get(0).path("after").asDouble()).isBetween(149.0, 151.0);
        assertThat(points.get(0).path("pValue").asDouble()).isLessThanOrEqualTo(0.05);
        // AND in the table, after the per-run verdicts
        assertThat(run("history", "--db", db, "trend", "ttft.p99", "--test", TEST, "--fingerprint",
                configuration(8).fingerprint())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("E-Divisive change points (p <= 0.05):",
                "  from run " + ids.get(8) + " (c0ffee8): mean 100.1 -> 150 ms (+49.8 %), p = 0.005");
        assertThat(run("history", "--db", db, "trend", "ttft.p99", "--test", TEST, "--change-point-significance",
                "2")).isNotZero();
        assertThat(err.toString()).contains("--change-point-significance");
    }

    @Test
    void should_print_a_trend_table_with_mann_whitney_on_the_samples_and_the_t_test_without_samples() {
        // WHEN
        int exit = run("history", "--db", db, "trend", "ttft.p99", "--test", TEST, "--fingerprint",
                configuration(8).fingerprint(), "--threshold", "mann-whitney", "--limit", "3");
        // THEN the last three runs: the sample shift between run 8 and run 9 is flagged, run 10 is like run 9
        assertThat(exit).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).contains("E-Divisive change points (p <= 0.05): none"); // 3 runs: too few
        assertFitsIn120Columns(out.toString());
        assertThat(lines.get(0)).contains("run", "started", "commit", "ttft.p99 (ms)", "verdict", "detail");
        assertThat(lines.get(1)).startsWith(ids.get(7) + " ").contains("NO_CHANGE", "Mann-Whitney U: median").doesNotContain("change point");
        assertThat(lines.get(2)).startsWith(ids.get(8) + " ").contains("REGRESSION <- change point",
                "Mann-Whitney U");
        assertThat(lines.get(3)).startsWith(ids.get(9) + " ").contains("NO_CHANGE");
        // AND a metric without samples gets the t-test, as a test's regression check would
        assertThat(run("history", "--db", db, "trend", "throughput.output_tokens", "--test", TEST, "--fingerprint",
                configuration(8).fingerprint(), "--threshold", "welch", "--limit", "1")).as(err.toString()).isZero();
        // (its long name is on a line above the table, whose value column is headed by the unit)
        assertThat(out.toString().lines().findFirst().orElseThrow())
                .isEqualTo("metric throughput.output_tokens: output token throughput");
        assertThat(out.toString().lines().skip(2).findFirst().orElseThrow()).startsWith(ids.get(9) + " ")
                .contains("499", "NO_CHANGE", "t-test: 499 tok/s vs mean");
    }

    @Test
    void should_name_the_known_metrics_tests_and_models_on_bad_trend_arguments() {
        assertThat(run("history", "--db", db, "trend", "itl.p99", "--test", TEST)).isEqualTo(2);
        assertThat(err.toString()).contains("has metric itl.p99; its metrics: kernel.category.GEMM.ms, "
                + "throughput.output_tokens, ttft.p99");

        assertThat(run("history", "--db", db, "trend", "ttft.p98", "--test", TEST)).isEqualTo(2);
        assertThat(err.toString()).contains("unknown history metric \"ttft.p98\"");

        assertThat(run("history", "--db", db, "trend", "ttft.p99", "--test", "com.acme.Nope#x")).isEqualTo(2);
        assertThat(err.toString()).contains("no runs of test com.acme.Nope#x", "known tests: "
                + TEST + ", com.acme.PrefillTest#prefill");

        assertThat(run("history", "--db", db, "trend", "ttft.p99", "--test", TEST, "--threshold", "sigma")).isEqualTo(2);
        assertThat(err.toString()).contains("--threshold 'sigma' is not a threshold model: use one of relative, "
                + "z-score, t-test, mann-whitney, welch");
        assertThat(run("history", "--db", db, "trend", "ttft.p99", "--test", TEST, "--boundary", "1.5")).isEqualTo(2);
        assertThat(err.toString()).contains("--boundary: ", "use a cumulative probability in [0.5, 1)");

    }

    @Test
    void should_prune_all_but_the_latest_runs_of_each_series() throws Exception {
        // WHEN
        int exit = run("history", "--db", db, "prune", "--keep", "2");
        // THEN the 10-run series keeps 2; the other two series have one run each
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("deleted 8 runs from jdbc:sqlite:");
        assertThat(run("history", "--db", db, "--format", "json", "list")).isZero();
        assertThat(json.readTree(out.toString()).path("runs").findValuesAsText("id")).containsExactly(
                String.valueOf(ids.get(11)), String.valueOf(ids.get(10)), String.valueOf(ids.get(9)),
                String.valueOf(ids.get(8)));
        // AND an age limit deletes every run older than it (these runs are from 2026-11-20)
        assertThat(run("history", "--db", db, "prune", "--keep", "5", "--older-than", "P100000D")).isZero();
        assertThat(out.toString()).startsWith("deleted 0 runs");
        assertThat(run("history", "--db", db, "prune", "--keep", "5", "--older-than", "0d")).isZero();
        assertThat(out.toString()).startsWith("deleted 4 runs");
        assertThat(run("history", "--db", db, "prune", "--keep", "1", "--older-than", "a month")).isEqualTo(2);
        assertThat(err.toString()).contains("--older-than 'a month' is not an age: use e.g. 30d");
    }

    @Test
    void should_fail_clearly_when_the_database_is_unreachable() {
        // WHEN nothing listens on the port
        int exit = run("history", "--db", "jdbc:postgresql://127.0.0.1:1/history", "list");
        // THEN
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).startsWith("history list: ").contains("127.0.0.1:1");
        // AND a SQLite file that does not exist is not created by a command that only reads
        Path missing = dir.resolve("elsewhere/history.db");
        assertThat(run("history", "--db", "jdbc:sqlite:" + missing, "list")).isEqualTo(2);
        assertThat(err.toString()).contains("no history store at jdbc:sqlite:" + missing, "pass --db");
        assertThat(missing.getParent()).doesNotExist();
        // AND a URL that is not JDBC
        assertThat(run("history", "--db", "history.db", "list")).isEqualTo(1);
        assertThat(err.toString()).startsWith("history list: ").contains("history.db");
    }

    @Test
    void should_import_a_bench_output_directory_once() throws Exception {
        // GIVEN a benchmark against the simulator, saved with its details directory (summary.json, latency.hlog)
        Path results = dir.resolve("results");
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().build())) {
            assertThat(run("bench", "--base-url", "http://" + sim.baseUri().getAuthority(), "--backend", "sglang",
                    "--num-prompts", "12", "--request-rate", "inf", "--random-input-len", "16",
                    "--random-output-len", "4", "--seed", "5", "--save-result", "--result-dir", results.toString(),
                    "--result-filename", "sim-run.json")).as(err.toString()).isZero();
        }
        // WHEN the result directory is imported
        int exit = run("history", "--db", db, "import", results.toString());
        // THEN the run is recorded under the bench test id, with its latency figures and histograms
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains("sim-run-details", "imported", "bench:sim-run")
                .contains("1 imported, 0 already in");
        assertThat(run("history", "--db", db, "--format", "json", "list", "--test", "bench:")).isZero();
        JsonNode runs = json.readTree(out.toString()).path("runs");
        assertThat(runs).hasSize(1);
        long id = runs.get(0).path("id").asLong();
        assertThat(runs.get(0).path("testId").asText()).isEqualTo("bench:sim-run");
        assertThat(runs.get(0).path("metrics").path("ttft.p99").asDouble()).isPositive();
        assertThat(run("history", "--db", db, "--format", "json", "show", String.valueOf(id))).isZero();
        JsonNode show = json.readTree(out.toString());
        assertThat(show.path("metrics").path("throughput.output_tokens").asDouble()).isPositive();
        assertThat(show.path("histograms").path("ttft").path("count").asLong()).isEqualTo(12);
        // WHEN imported again
        exit = run("history", "--db", db, "import", results.toString());
        // THEN nothing new is recorded
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains("skipped: already imported as run " + id)
                .contains("0 imported, 1 already in");
    }

    @Test
    void should_import_a_test_output_directory_under_its_package_and_report_a_missing_summary() throws Exception {
        // GIVEN a profiled test's output directory as the extension writes it
        Path test = Files.createDirectories(dir.resolve("profiled-rollout/GoldenTest/run"));
        try (InputStream summary = getClass().getResourceAsStream("/golden/summary.json")) {
            Files.copy(summary, test.resolve("summary.json"));
        }
        // WHEN
        int exit = run("history", "--db", db, "import", "--package", "com.acme", dir.resolve("profiled-rollout").toString());
        // THEN its test id carries the package, and its configuration comes from summary.json
        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).contains("GoldenTest/run", "imported", "com.acme.GoldenTest#run");
        try (HistoryStore store = HistoryStore.open(db, null, null)) {
            RunRecord recorded = store.list("com.acme.GoldenTest#run%", 10).get(0);
            assertThat(recorded.configuration().model()).isEqualTo("Qwen/Qwen3-8B");
            assertThat(recorded.configuration().tp()).isEqualTo(2);
            assertThat(recorded.outcome()).isEqualTo("FAILED");
            assertThat(recorded.metrics()).containsEntry("ttft.p99", 73.0);
        }
        // AND a directory without any summary.json is named
        assertThat(run("history", "--db", db, "import", dir.resolve("db").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("no summary.json in or below " + dir.resolve("db"));
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutLoad(concurrency = 4, requests = 8, inputTokens = 64, outputTokens = 8, warmupRequests = 1)
    static class OneWindowCase {
        @org.junit.jupiter.api.Test
        void run(RolloutSession session) {
            session.awaitResult();
        }
    }

    @ProfiledRollout(numSteps = 4, activities = Activity.GPU)
    @RolloutPhase(phase = Phase.PREFILL, inputTokens = 256, outputTokens = 1, concurrency = 4, requests = 4)
    @RolloutPhase(phase = Phase.DECODE, inputTokens = 16, outputTokens = 12, concurrency = 2, requests = 6)
    static class TwoPhasesCase {
        @org.junit.jupiter.api.Test
        void phases(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void should_import_profiled_test_directories_and_skip_the_runs_the_extension_recorded() throws Exception {
        // GIVEN a phased test the extension recorded in this store, and a test run with the history off
        Path output = dir.resolve("target/profiled-rollout");
        ProfiledTestKit.run(TwoPhasesCase.class, output, "profiledrollout.history.url", db)
                .testEvents().assertStatistics(s -> s.succeeded(1));
        ProfiledTestKit.run(OneWindowCase.class, output, "profiledrollout.history.enabled", "false")
                .testEvents().assertStatistics(s -> s.succeeded(1));
        String phased = TwoPhasesCase.class.getName() + "#phases";
        // WHEN the output directory is imported
        int exit = run("history", "--db", db, "--format", "json", "import", output.toString());
        // THEN the test run with the history off is recorded, with its GPU trace's figures; the phased one is not
        // recorded again (its phase directories are read with it, not as tests of their own)
        assertThat(exit).as(err.toString()).isZero();
        JsonNode result = json.readTree(out.toString());
        assertThat(result.path("imported").asInt()).isEqualTo(1);
        assertThat(result.path("skipped").asInt()).isEqualTo(1);
        assertThat(result.path("directories").findValuesAsText("testId"))
                .containsExactlyInAnyOrder("OneWindowCase#run", phased);
        try (HistoryStore store = HistoryStore.open(db, null, null)) {
            assertThat(store.list(phased + "/%", 10)).extracting(r -> r.identity().testId())
                    .containsExactlyInAnyOrder(phased + "/PREFILL", phased + "/DECODE");
            RunRecord imported = store.list("OneWindowCase#run", 10).get(0);
            assertThat(imported.configuration().numSteps()).isEqualTo(4);
            assertThat(imported.configuration().concurrency()).isEqualTo(4);
            assertThat(imported.metrics()).containsKeys("ttft.p99", "trace.kernel_ms", "trace.gpu_busy_fraction");
            assertThat(store.run(imported.id()).orElseThrow().histograms()).containsKeys("ttft", "itl");
        }
        // WHEN imported again
        assertThat(run("history", "--db", db, "import", output.toString())).as(err.toString()).isZero();
        // THEN nothing is recorded twice
        assertThat(out.toString()).contains("skipped: recorded by the test as run", "skipped: already imported as run",
                "0 imported, 2 already in");
    }
}
