package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.capacity.Capacity;
import dev.profiledrollout.capacity.CapacitySearch;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadTarget;
import dev.profiledrollout.load.StageRunner;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.report.StageReport;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import okhttp3.OkHttpClient;
import org.apiguardian.api.API;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code capacity}: the highest request rate (or concurrency) at which every percentile SLO holds, found by
 * bracketing and bisection over load stages against a running server ({@link CapacitySearch}; definitions in
 * docs/METRICS.md §11). Prints the figure and the stage table, or {@code stages.json}'s document with
 * {@code --format json}. Exit code 0 with a figure, 1 without one (no stage met the SLOs, or the client could not drive
 * the load), 2 for bad options.
 */
@API(status = INTERNAL, since = "0.2")
@Command(name = "capacity", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Find the highest load at which every SLO holds (bracketing, then bisection over stages).")
public final class CapacityCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--url", required = true, description = "Server root, e.g. http://127.0.0.1:30000.")
    String url;

    @Option(names = "--backend", defaultValue = "sglang", description = "sglang or vllm (default ${DEFAULT-VALUE});"
            + " both are driven through /v1/completions.")
    String backend;

    @Option(names = "--slo", required = true, arity = "1", paramLabel = "METRIC.pP<BUDGET>",
            description = "An SLO, repeatable: e.g. --slo 'ttft.p99<500ms' --slo 'tpot.p99<50ms'.")
    List<String> slos;

    @Option(names = "--concurrency", description = "Search closed-loop concurrencies instead of request rates.")
    boolean concurrency;

    /**
     * The first rate of a search without {@code --start}, req/s. A stage above the capacity costs a few seconds (it
     * ends at the interim look that decides its miss, {@code CapacitySearch.INTERIM_LOOKS}) while a stage below it
     * runs all its requests (368 for a p99 SLO: 46 s at 8 req/s), so the search starts high and halves down.
     */
    static final double DEFAULT_START_RATE = 32;

    @Option(names = "--rate", description = "Search open-loop Poisson request rates (the default).")
    boolean rate;

    @Option(names = "--start", description = "First level: req/s (default 32: a stage above the capacity ends as soon"
            + " as its miss is decided, so starting high is cheap) or lanes (default 1).")
    Double start;

    @Option(names = "--max", description = "Highest level tried: req/s (default 512) or lanes (default 256).")
    Double max;

    @Option(names = "--precision", defaultValue = "0.05", description = "Relative half-width to stop at (default ${DEFAULT-VALUE}).")
    double precision;

    @Option(names = "--max-stages", defaultValue = "12", description = "Most stages (default ${DEFAULT-VALUE}).")
    int maxStages;

    @Option(names = "--min-requests", defaultValue = "40", description = "Fewest requests per stage (default ${DEFAULT-VALUE}; raised to what the strictest SLO's percentile interval needs, 368 for a p99).")
    int minRequests;

    @Option(names = "--stage-seconds", defaultValue = "3", description = "Rate stage length: rate x seconds requests (default ${DEFAULT-VALUE}).")
    double stageSeconds;

    @Mixin
    LoadOptions load = new LoadOptions();

    @Option(names = "--num-warmups", defaultValue = "2", description = "Warm-up requests before the first stage (default ${DEFAULT-VALUE}).")
    int warmups;

    @Option(names = "--seed", defaultValue = "0", description = "Default ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--max-lag-ms", defaultValue = "10", description = "Schedule-lag p99 above which a stage counts as"
            + " not driven by the client (default ${DEFAULT-VALUE}).")
    long maxLagMs;

    @Option(names = "--stage-timeout", defaultValue = "600", description = "Seconds one stage may take (default ${DEFAULT-VALUE}).")
    long stageTimeoutSeconds;

    @Option(names = "--format", defaultValue = "table", description = "table (default) or json.")
    String format;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CapacitySearch search;
        LoadSpec base;
        try {
            if (!backend.equals("sglang") && !backend.equals("vllm")) {
                throw new IllegalArgumentException("--backend must be sglang or vllm, was '" + backend + "'");
            }
            if (!format.equals("table") && !format.equals("json")) {
                throw new IllegalArgumentException("--format must be table or json, was '" + format + "'");
            }
            if (concurrency && rate) {
                throw new IllegalArgumentException("--concurrency and --rate exclude each other: pick what to search");
            }
            if (maxLagMs < 1) {
                throw new IllegalArgumentException("--max-lag-ms must be at least 1, was " + maxLagMs);
            }
            CapacitySearch.Builder b = CapacitySearch.builder().slo(slos.toArray(String[]::new)).precision(precision)
                    .maxStages(maxStages).stageSize(minRequests, stageSeconds, 4);
            if (concurrency) {
                b.byConcurrency((int) Math.round(start == null ? 1 : start), (int) Math.round(max == null ? 256 : max));
            } else {
                b.byRate(start == null ? DEFAULT_START_RATE : start, max == null ? 512 : max);
            }
            search = b.build();
            base = LoadSpec.closedLoop(1, minRequests, load.randomInputLen, load.randomOutputLen, 0.0, warmups, seed);
        } catch (IllegalArgumentException e) {
            err.println("capacity: " + e.getMessage());
            err.flush();
            return 2;
        }
        URI root = URI.create(url.replaceAll("/+$", ""));
        LoadTarget target = LoadTarget.builder(root).bearerToken(CliHttp.apiKey()).build();
        String modelId = load.model != null ? load.model : BenchCommand.firstModel(new OkHttpClient(), root);
        Capacity capacity;
        try (StageRunner runner = new StageRunner(target, modelId, base, Slo.none(),
                Duration.ofSeconds(stageTimeoutSeconds), Duration.ofMillis(maxLagMs))) {
            // each stage is chosen and started by the thread that read the previous one's last response
            capacity = search.run(base, runner, r -> System.err.println(String.format(java.util.Locale.ROOT,
                    "capacity: stage %s, %d requests, %.1f s", r.label(), r.latency().completed() + r.failures(),
                    r.latency().records().stream().mapToLong(x -> Math.max(x.endNanos(), x.startNanos())).max()
                            .orElse(0) / 1e9 - r.latency().records().stream().mapToLong(x -> x.startNanos()).min()
                            .orElse(0) / 1e9)));
        }
        if (format.equals("json")) {
            out.println(StageReport.toJson(capacity.stages(), capacity));
        } else {
            out.print(capacity.toTable());
            capacity.knee().ifPresent(k -> out.println("saturation knee: " + k.label()));
        }
        out.flush();
        return capacity.found() ? 0 : 1;
    }
}
