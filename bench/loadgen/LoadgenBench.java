import dev.profiledrollout.load.CompletionRequest;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.cli.bench.LoadTest;
import dev.profiledrollout.cli.bench.LoadTestResult;
import dev.profiledrollout.load.Workload;
import dev.profiledrollout.metrics.LatencyDistribution;
import dev.profiledrollout.metrics.RequestRecord;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The load generator's own ceiling against zero-latency SSE servers (bench/loadgen/loadgen.sh starts them).
 * Usage: java -cp cli/target/profiled-rollout.jar bench/loadgen/LoadgenBench.java NGINX_URL STAMP_URL [closedSeconds]
 * [poissonSeconds]. Prints one "key value" line per figure, for the script to compare with the anchors.
 *
 * <p>Against nginx: the 64-way closed loop's request and SSE-event rates and its TTFT. Against the stamping server
 * (sse-server.c, same body), every request's TTFT split by the server's CLOCK_MONOTONIC stamps (the clock of
 * System.nanoTime on Linux) into four consecutive parts:
 * <ol>
 *   <li>client send: from the request's start in the client until the kernel received its first bytes at the
 *       server's socket (on loopback, when the client's send() delivered them);</li>
 *   <li>server queue: until the server had read the whole request;</li>
 *   <li>server: until the server's send() of the response returned (the bytes are then in the client's socket);</li>
 *   <li>client receive: until the client had parsed the first token.</li>
 * </ol>
 * The client-added TTFT is parts 1 + 4, the time the request spent in the client on either side of the server.
 * Open loops (Poisson) measure the schedule lag.
 */
public final class LoadgenBench {

    /** The request index rides in the prompt's first token id, for the stamping server to log. */
    private static final Workload INDEXED = i -> {
        int[] ids = new int[16];
        ids[0] = i;
        for (int k = 1; k < ids.length; k++) {
            ids[k] = 1000 + k;
        }
        return new CompletionRequest(i, ids, 128);
    };

    public static void main(String[] args) throws Exception {
        String nginx = args[0];
        String stamping = args[1];
        double closedSeconds = args.length > 2 ? Double.parseDouble(args[2]) : 10;
        double poissonSeconds = args.length > 3 ? Double.parseDouble(args[3]) : 5;

        print("client_loop_threads", LoadGenerator.loopThreadCount());
        // JIT warm-up, not measured: the same closed loop, long enough for C2 to compile the read path
        closed(nginx, 64, 8);

        settle();
        long cpu0 = processCpuNanos();
        LoadTestResult c = closed(nginx, 64, closedSeconds);
        long cpu = processCpuNanos() - cpu0;
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
        // the client JVM's CPU (every thread: event loop, GC, JIT) per request, the run's result processing included
        print("closed64_client_cpu_us_per_request", cpu / 1e3 / Math.max(1, c.latency().records().size()));
        print("closed64_ttft_p50_ms", ms(c.latency().ttft(), 50));
        print("closed64_ttft_p99_ms", ms(c.latency().ttft(), 99));

        c = null; // the records of one phase must not be collected during the next
        settle();
        stamps(stamping); // clears the server's log
        LoadTestResult s = closed(stamping, 64, closedSeconds);
        Map<Integer, long[]> byIndex = stamps(stamping);
        Histogram ttft = new Histogram(3);
        Histogram clientSend = new Histogram(3);
        Histogram serverQueue = new Histogram(3);
        Histogram server = new Histogram(3);
        Histogram clientReceive = new Histogram(3);
        Histogram added = new Histogram(3);
        int joined = 0;
        for (RequestRecord r : s.latency().records()) {
            long[] st = byIndex.get(r.index()); // rx, read, sent
            if (!r.succeeded() || st == null || st[0] < 0 || st[2] < 0) {
                continue;
            }
            joined++;
            long first = r.firstTokenNanos();
            long send = Math.max(0, st[0] - r.startNanos());
            long receive = Math.max(0, first - st[2]);
            ttft.recordValue(first - r.startNanos());
            clientSend.recordValue(send);
            serverQueue.recordValue(Math.max(0, st[1] - st[0]));
            server.recordValue(Math.max(0, st[2] - st[1]));
            clientReceive.recordValue(receive);
            added.recordValue(send + receive);
        }
        print("stamped64_requests", s.latency().completed());
        print("stamped64_joined", joined);
        print("stamped64_req_per_s", s.latency().requestThroughput());
        for (double p : new double[] {50, 99, 99.9}) {
            String q = p == 99.9 ? "p999" : "p" + (int) p;
            print("stamped64_ttft_" + q + "_ms", ttft.getValueAtPercentile(p) / 1e6);
            print("stamped64_client_send_" + q + "_ms", clientSend.getValueAtPercentile(p) / 1e6);
            print("stamped64_server_queue_" + q + "_ms", serverQueue.getValueAtPercentile(p) / 1e6);
            print("stamped64_server_" + q + "_ms", server.getValueAtPercentile(p) / 1e6);
            print("stamped64_client_receive_" + q + "_ms", clientReceive.getValueAtPercentile(p) / 1e6);
            print("stamped64_client_added_" + q + "_ms", added.getValueAtPercentile(p) / 1e6);
        }

        s = null;
        byIndex = null;
        settle();
        LoadTestResult one = closed(nginx, 1, 3);
        print("closed1_ttft_p50_ms", ms(one.latency().ttft(), 50));
        print("closed1_ttft_p99_ms", ms(one.latency().ttft(), 99));

        for (int rate : new int[] {100, 500, 1000, 2000}) {
            int n = (int) Math.round(rate * poissonSeconds);
            settle();
            LoadTestResult p = LoadTest.builder().baseUri(nginx).model("bench").requestRate(rate).burstiness(1.0)
                    .requests(n).randomTokens(16, 128, 0.0).seed(rate).timeout(Duration.ofMinutes(5)).build().run();
            print("poisson" + rate + "_requests", p.latency().completed());
            print("poisson" + rate + "_failed", p.latency().failed());
            print("poisson" + rate + "_achieved_req_per_s", (p.latency().records().size() - 1) / (sendSpan(p) / 1e9));
            print("poisson" + rate + "_lag_p50_ms", ms(p.schedule().lag(), 50));
            print("poisson" + rate + "_lag_p99_ms", ms(p.schedule().lag(), 99));
            print("poisson" + rate + "_lag_max_ms", p.schedule().lag().max().toNanos() / 1e6);
            print("poisson" + rate + "_ttft_p99_ms", ms(p.latency().ttft(), 99));
            p = null;
            settle();
            print("poisson" + rate + "_handoff_floor_p99_ms", handoffP99(rate, n) / 1e6);
        }
    }

    /**
     * The machine's floor for schedule lag, measured right after the phase it is compared with: the same Poisson
     * schedule, the same wait (park to 100 µs before each deadline, then spin), but the request is only handed to
     * another, sleeping thread, which stamps when it wakes (no network, no Netty). A lag p99 near this floor is the
     * operating system's and the hypervisor's wake-up latency, not the client's.
     *
     * @return the p99 of (wake-up stamp − deadline), ns
     */
    private static long handoffP99(int rate, int n) throws InterruptedException {
        java.util.concurrent.LinkedBlockingQueue<Long> queue = new java.util.concurrent.LinkedBlockingQueue<>();
        Histogram lag = new Histogram(3);
        Thread taker = new Thread(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    long deadline = queue.take();
                    lag.recordValue(Math.max(0, System.nanoTime() - deadline));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "handoff-floor");
        taker.start();
        java.util.SplittableRandom random = new java.util.SplittableRandom(rate);
        long t = System.nanoTime() + 1_000_000;
        for (int i = 0; i < n; i++) {
            t += (long) (-Math.log(1 - random.nextDouble()) * 1e9 / rate);
            while (true) {
                long remaining = t - System.nanoTime();
                if (remaining <= 0) {
                    break;
                }
                if (remaining > 100_000) {
                    java.util.concurrent.locks.LockSupport.parkNanos(remaining - 100_000);
                } else {
                    Thread.onSpinWait();
                }
            }
            queue.add(t);
        }
        taker.join();
        return lag.getValueAtPercentile(99);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** A full collection between phases, so that one phase's garbage is not collected during the next. */
    private static void settle() throws InterruptedException {
        System.gc();
        Thread.sleep(200);
    }

    /** The stamping server's log since the last call: index → {rx_ns, read_ns, sent_ns}. */
    private static Map<Integer, long[]> stamps(String base) throws IOException {
        HttpURLConnection http = (HttpURLConnection) URI.create(base + "/stamps").toURL().openConnection();
        Map<Integer, long[]> byIndex = new HashMap<>();
        try (InputStream in = http.getInputStream()) {
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : text.split("\n")) {
                String[] f = line.split(" ");
                if (f.length == 4) {
                    byIndex.put(Integer.parseInt(f[0]),
                            new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
                }
            }
        } finally {
            http.disconnect();
        }
        return byIndex;
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
                .duration(Duration.ofNanos((long) (seconds * 1e9))).workload(INDEXED)
                .timeout(Duration.ofMinutes(5)).build().run();
    }

    private static double ms(LatencyDistribution d, double p) {
        return d.interpolatedPercentile(p).toNanos() / 1e6;
    }

    private static void print(String key, double value) {
        System.out.println(key + " " + String.format(Locale.ROOT, "%.3f", value));
    }
}
