package dev.profiledrollout.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.junit.ProfiledTestKit;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadRun;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadTarget;
import dev.profiledrollout.metrics.LatencyReport;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Soak: steady closed-loop load against the simulator through one long-lived {@link LoadGenerator} for
 * {@code profiledrollout.test.soak.seconds} (default 20 s in CI; hours by hand). After a warm-up batch the test records
 * heap-after-GC, open file descriptors ({@code /proc/self/fd}) and live threads, then checks at the end that none
 * grew with the request count and that every request of every batch completed.
 *
 * <p>Memory model: a run keeps one {@link RequestRecord} per request (its chunk timestamps) until its
 * {@link LatencyReport} is built, because requests.jsonl and the per-request metrics need them; a window's report
 * holds HdrHistograms, not lists of samples. A generator drops finished runs when it starts the next one, so memory
 * is bounded by one window, not by the soak's length.
 */
class SoakTest {

    private static final long HEAP_GROWTH_LIMIT = 48L << 20;

    @Test
    void steady_load_keeps_heap_file_descriptors_and_threads_flat_and_loses_no_request() throws Exception {
        long seconds = Long.getLong("profiledrollout.test.soak.seconds", 20);
        LoadSpec spec = new LoadSpec(8, 64, 32, 16, 0.0, 0, 0);
        try (EngineSimulator engine = EngineSimulator.start(SimulatorConfig.builder().build());
                LoadGenerator generator = new LoadGenerator(LoadTarget.of(engine.baseUri()),
                        engine.config().servedModelName(), spec)) {
            batch(generator, spec);
            long heap0 = heapAfterGc();
            int fds0 = openFds();
            int threads0 = Thread.activeCount();
            long requests = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            long maxHeap = heap0;
            while (System.nanoTime() < deadline) {
                requests += batch(generator, spec);
                if (requests % (spec.requests() * 10L) == 0) {
                    maxHeap = Math.max(maxHeap, heapAfterGc());
                }
            }
            long heap1 = heapAfterGc();
            int fds1 = openFds();
            int threads1 = Thread.activeCount();
            System.out.printf("soak: %d s, %d requests; heap after GC %d → %d KiB (max %d); fds %d → %d; threads %d"
                    + " → %d%n", seconds, requests, heap0 >> 10, heap1 >> 10, maxHeap >> 10, fds0, fds1, threads0,
                    threads1);
            assertThat(requests).isGreaterThanOrEqualTo(spec.requests());
            assertThat(heap1 - heap0).as("heap growth after GC over " + requests + " requests")
                    .isLessThan(HEAP_GROWTH_LIMIT);
            if (fds0 >= 0) {
                assertThat(fds1 - fds0).as("file-descriptor growth").isLessThanOrEqualTo(spec.concurrency() + 4);
            }
            assertThat(threads1 - threads0).as("thread growth").isLessThanOrEqualTo(4);
        }
        ProfiledTestKit.assertNoThreadsLeft();
    }

    /** One window of {@code spec.requests()} requests; every one must complete. */
    private static int batch(LoadGenerator generator, LoadSpec spec) throws Exception {
        LoadRun run = generator.start();
        List<RequestRecord> records = run.await(Duration.ofMinutes(2));
        LatencyReport report = LatencyReport.of(records);
        assertThat(report.completed()).as("completed requests, errors " + report.errors()).isEqualTo(spec.requests());
        return records.size();
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Open file descriptors of this process, or -1 where {@code /proc/self/fd} does not exist. */
    private static int openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }
}
