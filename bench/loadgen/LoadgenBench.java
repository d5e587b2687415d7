import dev.profiledrollout.load.LoadTest;
import dev.profiledrollout.load.LoadTestResult;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.RequestRecord;

import java.time.Duration;
import java.util.Locale;

/**
 * The load generator's own ceiling against a zero-latency SSE server (bench/loadgen/loadgen.sh starts nginx).
 * Usage: java -cp cli/target/profiled-rollout.jar bench/loadgen/LoadgenBench.java BASE_URL [closedSeconds] [poissonSeconds]
 * Prints one "key value" line per figure, for the script to compare with the anchors.
 */
public final class LoadgenBench {

    public static void main(String[] args) throws Exception {
        String base = args[0];
        double closedSeconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        double poissonSeconds = args.length > 2 ? Double.parseDouble(args[2]) : 5;

        // JIT warm-up, not measured: the same closed loop, long enough for C2 to compile the read path
        closed(base, 64, 8);

        LoadTestResult c = closed(base, 64, closedSeconds);
        long events = 0;
        for (RequestRecord r : c.latency().records()) {
            // choices chunks + the usage chunk + [DONE]: the SSE events on the wire
            events += r.succeeded() ? r.chunkCount() + 2 : 0;
        }
        double seconds = c.latency().duration().toNanos() / 1e9;
        print("closed64_requests", c.latency().completed());
        print("closed64_failed", c.latency().failed());
        print("closed64_req_per_s", c.latency().requestThroughput());
        print("closed64_sse_events_per_s", events / seconds);
        print("closed64_ttft_p50_ms", ms(c.latency().ttft(), 50));
        print("closed64_ttft_p99_ms", ms(c.latency().ttft(), 99));

        LoadTestResult one = closed(base, 1, 3);
        print("closed1_ttft_p50_ms", ms(one.latency().ttft(), 50));
        print("closed1_ttft_p99_ms", ms(one.latency().ttft(), 99));

        for (int rate : new int[] {100, 500, 1000, 2000}) {
            int n = (int) Math.round(rate * poissonSeconds);
            LoadTestResult p = LoadTest.builder().baseUri(base).model("bench").requestRate(rate).burstiness(1.0)
                    .requests(n).randomTokens(16, 128, 0.0).seed(rate).timeout(Duration.ofMinutes(5)).build().run();
            print("poisson" + rate + "_requests", p.latency().completed());
            print("poisson" + rate + "_failed", p.latency().failed());
            print("poisson" + rate + "_achieved_req_per_s", (p.latency().records().size() - 1) / (sendSpan(p) / 1e9));
            print("poisson" + rate + "_lag_p50_ms", ms(p.schedule().lag(), 50));
            print("poisson" + rate + "_lag_p99_ms", ms(p.schedule().lag(), 99));
            print("poisson" + rate + "_lag_max_ms", p.schedule().lag().max().toNanos() / 1e6);
            print("poisson" + rate + "_ttft_p99_ms", ms(p.latency().ttft(), 99));
        }
    }

    /** First to last actual send, ns: (N − 1) / span is the achieved request rate. */
    private static long sendSpan(LoadTestResult p) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (RequestRecord r : p.latency().records()) {
            first = Math.min(first, r.startNanos());
            last = Math.max(last, r.startNanos());
        }
        return Math.max(1, last - first);
    }

    private static LoadTestResult closed(String base, int concurrency, double seconds) throws Exception {
        return LoadTest.builder().baseUri(base).model("bench").closedLoop(concurrency).requests(2_000_000)
                .duration(Duration.ofNanos((long) (seconds * 1e9))).randomTokens(16, 128, 0.0)
                .timeout(Duration.ofMinutes(5)).build().run();
    }

    private static double ms(LatencyDistribution d, double p) {
        return d.interpolatedPercentile(p).toNanos() / 1e6;
    }

    private static void print(String key, double value) {
        System.out.println(key + " " + String.format(Locale.ROOT, "%.3f", value));
    }
}
