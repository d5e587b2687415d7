package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.cli.bench.LoadTestResult;
import dev.profiledrollout.report.ResultsModule;
import dev.profiledrollout.report.RunHeader;
import dev.profiledrollout.report.SummaryFile;
import java.io.UncheckedIOException;
import dev.profiledrollout.engine.SafeUrls;
import java.net.URI;
import java.nio.file.Path;
import org.apiguardian.api.API;

/**
 * Makes the directory {@code bench --save-result} writes next to its result JSON ({@code <name>-details/}, holding
 * {@code requests.jsonl}, {@code latency.hlog}, {@code timeseries.csv}, see {@link LoadTestResult#writeTo}) a run
 * directory {@code profiled-rollout report} renders, by adding the {@code summary.json} a profiled test would have.
 */
@API(status = INTERNAL, since = "0.1")
public final class BenchRunDirectory {

    private static final ObjectMapper JSON = ResultsModule.newMapper();

    private BenchRunDirectory() {
    }

    /**
     * Writes {@code directory/summary.json} in the shape {@link dev.profiledrollout.report.RunReport} documents, with
     * the fields a benchmark has: {@code test} ({@code "bench <resultName>"}), {@code engine} ({@code backend} as
     * labelled, {@code url} without user info or query, {@code kind} {@code "attached"}, {@code model}),
     * {@code load}, {@code latency} and {@code error} (null). There is no profile window, so no
     * {@code profileRequest}, {@code trace} or {@code workers}.
     *
     * @param directory  the details directory, already written by {@link LoadTestResult#writeTo}
     * @param resultName the result JSON's file name, e.g. {@code vllm-inf-qps-Llama-3.1-8B-20260101-120000.json}
     * @param base       the server root the benchmark ran against
     * @throws UncheckedIOException when the file cannot be written
     */
    public static void writeSummary(Path directory, String resultName, URI base, LoadTestResult result) {
        SummaryFile.builder()
                .test("bench " + resultName.replaceAll("\\.json$", ""))
                .engine(new RunHeader.Engine(result.backend(), SafeUrls.of(base.toString()), "attached",
                        result.model(), null, null, null, null, null, null, null))
                .load(JSON.valueToTree(result.spec()))
                .latency(JSON.valueToTree(result.latency()))
                .error(null)
                .build().write(directory.resolve("summary.json"));
    }

}
