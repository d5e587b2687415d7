package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The reader recycles its GPU timeline chunk, scanner buffer, join blocks, inflate chunks and per-file arrays (stream
 * queues, roofline call columns, sort orders: {@code ArrayPool}) per thread: a read must not see anything of the reads
 * before it on the same thread, nor of reads on other threads.
 */
class RecycledBuffersTest {

    @Test
    void reads_after_other_reads_on_the_same_thread_give_the_same_summaries() throws IOException {
        // GIVEN every repository trace read once, in order, on this thread
        List<Path> traces = TestTraces.jsonTraces();
        List<TraceSummary> first = new ArrayList<>();
        for (Path trace : traces) {
            first.add(KinetoTraceReader.read(trace));
        }
        // WHEN read again in reverse order, each one now on the buffers the others left behind
        for (int i = traces.size() - 1; i >= 0; i--) {
            // THEN the same summary
            assertThat(KinetoTraceReader.read(traces.get(i))).as(traces.get(i).toString()).isEqualTo(first.get(i));
        }
        assertThat(first).hasSizeGreaterThanOrEqualTo(4);
    }

    @Test
    void concurrent_reads_on_pool_threads_give_the_summaries_of_reads_alone() throws Exception {
        List<Path> traces = TestTraces.jsonTraces();
        List<TraceSummary> alone = new ArrayList<>();
        for (Path trace : traces) {
            alone.add(KinetoTraceReader.read(trace));
        }
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<TraceSummary>> futures = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (Path trace : traces) {
                    futures.add(pool.submit(() -> KinetoTraceReader.read(trace)));
                }
            }
            for (int i = 0; i < futures.size(); i++) {
                assertThat(futures.get(i).get()).isEqualTo(alone.get(i % traces.size()));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void a_rank_set_read_on_every_core_gives_the_summaries_of_single_reads() throws IOException {
        // TraceSet.read inflates on the reading threads when it has a reader per core, else on piped threads: both
        // must give what a single read gives (gzip and plain files, valid and damaged-but-tolerated ones)
        List<Path> traces = TestTraces.jsonTraces();
        List<TraceSummary> alone = new ArrayList<>();
        for (Path trace : traces) {
            alone.add(KinetoTraceReader.read(trace));
        }
        for (List<Path> files : List.of(traces, traces.subList(0, 1))) {
            TraceSet set = TraceSet.read(files);
            assertThat(set.traces()).containsExactlyInAnyOrderElementsOf(alone.subList(0, files.size()));
        }
    }
}
