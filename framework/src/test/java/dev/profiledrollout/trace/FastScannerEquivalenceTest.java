package dev.profiledrollout.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The byte scanner must give exactly what the Jackson path gives on every input it accepts, and hand every input it
 * does not accept to that path.
 */
class FastScannerEquivalenceTest {

    @TempDir
    Path dir;

    static List<Path> sharedJsonTraces() {
        return SharedTraces.jsonTraces();
    }

    @ParameterizedTest
    @MethodSource("sharedJsonTraces")
    void shared_traces_give_identical_summaries(Path trace) throws IOException {
        TraceSummary fast = KinetoTraceReader.read(trace, KernelCategories.defaults(), true);
        TraceSummary jackson = KinetoTraceReader.read(trace, KernelCategories.defaults(), false);
        assertThat(fast).isEqualTo(jackson);
    }

    @Test
    void hazards_the_scanner_leaves_to_the_tolerant_path_give_identical_summaries() throws IOException {
        String[] documents = {
                // bare inf in args, numeric strings, leading {} element and leading comma (rpd2tracing)
                "[{},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":\"10.5\",\"dur\":\"2\","
                        + "\"args\":{\"blocks per SM\":inf}}]",
                "[,{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":1,\"dur\":2}]",
                // unicode escapes and non-ASCII names, 19-digit and >64-bit integers, exponent ts
                "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"caf\\u00e9 µ\",\"pid\":\"[TP01] 3\","
                        + "\"ts\":1.5e3,\"dur\":0.5,\"args\":{\"correlation\":1234567890123456789,"
                        + "\"External id\":123456789012345678901234,\"Input Dims\":[[1,2],[],[3]]}},"
                        + "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":null,\"pid\":0,\"ts\":null,\"dur\":1}],"
                        + "\"baseTimeNanoseconds\":1775078550000000000,\"distributedInfo\":{\"rank\":3}}",
                // truncated
                "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":1,\"dur\":2},"
                        + "{\"ph\":\"X\",\"cat\":\"kernel\",\"na"};
        int i = 0;
        for (String doc : documents) {
            Path file = Files.writeString(dir.resolve("t" + i++ + ".json"), doc);
            TraceSummary fast = KinetoTraceReader.read(file, KernelCategories.defaults(), true);
            TraceSummary jackson = KinetoTraceReader.read(file, KernelCategories.defaults(), false);
            assertThat(fast).as(doc).isEqualTo(jackson);
            assertThat(fast.kernelEvents() + fast.memoryEvents()).as(doc).isPositive();
        }
    }
}
