package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.report.GoldenJson;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.baselines.TraceBaseline;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code analyze --format json} on the real traces in {@code testdata/traces} against golden files. The traces'
 * directory, which the output names, is replaced by {@code <traces>}.
 */
class AnalyzeJsonGoldenTest {

    private static final Path ROOT = TestTraces.resolve("");

    @TempDir
    Path dir;

    private static String analyze(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute(args)).as("exit code; stderr: %s", err).isZero();
        return out.toString().replace(ROOT.toString(), "<traces>");
    }

    @Test
    void should_print_the_golden_json_for_every_trace_in_testdata() {
        String json = analyze("--format", "json", ROOT.toString(), ROOT.resolve("rpd/matmul_result.rpd").toString());

        GoldenJson.assertMatches(json, "analyze-testdata.json");
    }

    @Test
    void should_print_the_golden_json_for_two_ranks_with_all_ranks_and_a_baseline() throws IOException {
        Path sglang = ROOT.resolve("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz");
        // a baseline in which the largest SGLang kernel took twice as long and one kernel has since vanished
        List<KernelStats> kernels = new ArrayList<>(KinetoTraceReader.read(sglang).kernels());
        KernelStats top = kernels.get(0);
        kernels.set(0, new KernelStats(top.name(), top.count() + 1, 2 * top.totalNs(), -1, -1));
        kernels.add(new KernelStats("vanished_kernel", 3, 3_000, -1, -1));
        Path baseline = dir.resolve("baseline.json");
        new TraceBaseline(kernels.stream().mapToLong(KernelStats::totalNs).sum(), 0, kernels).write(baseline);

        String json = analyze("--format", "json", "--all-ranks", "--baseline", baseline.toString(),
                ROOT.resolve("hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz").toString(),
                sglang.toString());

        GoldenJson.assertMatches(json, "analyze-all-ranks-baseline.json");
    }
}
