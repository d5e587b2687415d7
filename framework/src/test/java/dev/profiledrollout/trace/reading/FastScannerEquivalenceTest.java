package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.internal.EventParser;
import dev.profiledrollout.trace.internal.FastEventScanner;
import dev.profiledrollout.trace.internal.RawEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The byte scanner must give exactly what the Jackson path gives on every input it accepts, and hand every input it
 * does not accept to that path.
 */
class FastScannerEquivalenceTest {

    @TempDir
    Path dir;

    static List<Path> sharedJsonTraces() {
        return TestTraces.jsonTraces();
    }

    @ParameterizedTest
    @MethodSource("sharedJsonTraces")
    void shared_traces_give_identical_summaries(Path trace) throws IOException {
        sameSummaryBothPaths(trace);
    }

    /** The summary of one path (byte scanner or Jackson), or its error's class and message. */
    private static Object summaryOrError(Path file, boolean fast) {
        try {
            return KinetoTraceReader.read(file, KernelCategories.defaults(), fast);
        } catch (IOException | RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Reads {@code file} with the byte scanner and with the Jackson path, asserts equal summaries, returns one. */
    private static TraceSummary sameSummaryBothPaths(Path file) throws IOException {
        TraceSummary fast = KinetoTraceReader.read(file, KernelCategories.defaults(), true);
        TraceSummary jackson = KinetoTraceReader.read(file, KernelCategories.defaults(), false);
        assertThat(fast).as(file.getFileName().toString()).isEqualTo(jackson);
        return fast;
    }

    /** Writes {@code doc} as {@code name}, asserts that both paths give the same summary or error, returns it. */
    private Object sameVerdictBothPaths(String name, String doc) throws IOException {
        Path file = Files.writeString(dir.resolve(name), doc);
        Object fast = summaryOrError(file, true);
        assertThat(fast).as(doc).isEqualTo(summaryOrError(file, false));
        return fast;
    }

    @Test
    void time_values_the_scanner_converts_itself_give_identical_summaries() throws IOException {
        // plain decimals and exponent forms (some writers print doubles as 4.909914216204635E12), rounding at the
        // fourth fraction digit, signs, and values beyond the long fast paths
        String[] values = {"0", "7", "-3", "5.568", "5.5684", "5.5685", "-5.5685", "12.3456789", "4909914216204.635",
                "123456789012345.678", "1234567890123456.5", "4.909914216204635E12", "4.909914216204635e+12",
                "1.5e3", "1E5", "-2.5E2", "2.5E-4", "2.5e-3", "1.0005E-1", "-1.5E-3", "9.99E-7", "1E-30",
                "123456789012345678E2", "9E15", "9E16", "1E40", "\"3.25\"", "\"1.5E2\"", "0.0", "-0.0005",
                // epoch µs (16 digits, as absolute Kineto timestamps) up to the largest that fits in ns, and beyond
                "1712345678901234.567", "-1712345678901234.5675", "9223372036854774.999", "9223372036854775.807",
                "9223372036854775.808", "99999999999999999", "999999999999999999.5", "1234567890123456789"};
        StringBuilder doc = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < values.length; i++) {
            doc.append(i == 0 ? "" : ",").append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k").append(i)
                    .append("\",\"pid\":0,\"ts\":").append(values[i]).append(",\"dur\":").append(values[i])
                    .append('}');
        }
        doc.append("]}");
        Path file = Files.writeString(dir.resolve("times.json"), doc);
        TraceSummary fast = sameSummaryBothPaths(file);
        assertThat(fast.kernelEvents()).isGreaterThan(20);
    }

    @Test
    void categories_and_phases_matched_from_words_give_identical_summaries() throws IOException {
        // the usual spellings are matched with their closing quote from eight-byte loads; near misses, other cases
        // and escapes take the general path (of the byte scanner: no hand-over to Jackson here)
        String[] cats = {"kernel", "kernelx", "Kernel", "kerne", "cpu_op", "cpu_opp", "ac2g", "ac2gg", "python_function",
                "python_functionX", "cuda_runtime", "cuda_runtimes", "cuda_driver", "gpu_memcpy", "gpu_memcpyy",
                "Gpu_Memcpy", "gpu_memset", "user_annotation", "user_annotations", "gpu_user_annotation", "memcpy"};
        String[] phs = {"X", "x", "XX", "", "\\\\", "i"};
        StringBuilder doc = new StringBuilder("[");
        int n = 0;
        for (String cat : cats) {
            for (String ph : phs) {
                doc.append(n++ == 0 ? "" : ",").append("{\"ph\":\"").append(ph).append("\",\"cat\":\"").append(cat)
                        .append("\",\"name\":\"ProfilerStep#").append(n).append("\",\"pid\":0,\"ts\":").append(n)
                        .append(",\"dur\":1,\"args\":{\"correlation\":").append(n).append(",\"External id\":")
                        .append(n).append("}}");
            }
        }
        doc.append(']');
        Path file = Files.writeString(dir.resolve("cats.json"), doc);
        TraceSummary fast = sameSummaryBothPaths(file);
        assertThat(fast.kernelEvents()).isPositive();
        assertThat(scannedKernels(file)).isEqualTo(fast.kernelEvents());
    }

    @Test
    void long_names_recognised_by_their_remembered_bytes_give_identical_summaries() throws IOException {
        // Long plain names are remembered and later recognised by comparing bytes up to a closing quote: names sharing
        // their first 32+ bytes (more than fit in one set), one a prefix of another, and continuations with escapes
        // or non-ASCII after a remembered name must still be told apart.
        String shared = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<";
        String[] tails = {"A>", "A>(x)", "A>(x)\\\"q\\\"", "A>(x)\\\\", "B>", "C>", "D>", "E>", "F>", "G>", "H>", "I>",
                "J>", "K>", "A>(x) caf\u00e9", ""};
        StringBuilder doc = new StringBuilder("[");
        int n = 0;
        for (int round = 0; round < 3; round++) {
            for (String tail : tails) {
                doc.append(n++ == 0 ? "" : ",").append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"").append(shared)
                        .append(tail).append("\",\"pid\":0,\"ts\":").append(n).append(",\"dur\":").append(n % 7 + 1)
                        .append('}');
            }
        }
        doc.append(']');
        Path file = Files.writeString(dir.resolve("names.json"), doc);
        TraceSummary fast = sameSummaryBothPaths(file);
        assertThat(fast.kernels()).hasSize(tails.length);
        assertThat(scannedKernels(file)).isEqualTo(n);
    }

    @Test
    void skipped_events_with_escapes_and_brackets_in_strings_at_every_offset_give_identical_summaries()
            throws IOException {
        // The skip of unneeded events works eight bytes at a time; put escapes (also one ending a word) and brackets
        // inside strings at every offset, between kernels that must all be counted.
        String[] tricky = {"\\\\", "\\\"", "}", "]", "{[", "\\\\\\\"}", "\\u00e9", "\\n]"};
        StringBuilder doc = new StringBuilder("[");
        int kernels = 0;
        for (int pad = 0; pad < 17; pad++) {
            for (String t : tricky) {
                doc.append("{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"").append("x".repeat(pad)).append(t)
                        .append("\",\"args\":{\"a\":[\"").append(t).append("\",{\"b\":\"").append(t)
                        .append("\"}]},\"ts\":1,\"dur\":1},");
                doc.append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"ts\":").append(++kernels)
                        .append(",\"dur\":1},");
            }
        }
        doc.setLength(doc.length() - 1);
        doc.append(']');
        Path file = Files.writeString(dir.resolve("skips.json"), doc);
        TraceSummary fast = sameSummaryBothPaths(file);
        assertThat(fast.kernelEvents()).isEqualTo(kernels);
        // and the byte scanner itself read it (no hand-over to the Jackson path)
        assertThat(scannedKernels(file)).isEqualTo(kernels);
    }

    /** Complete kernel events the byte scanner reports; throws when it hands the file over to the Jackson path. */
    private static long scannedKernels(Path file) throws IOException {
        long[] seen = new long[1];
        try (var in = Files.newInputStream(file)) {
            new FastEventScanner(in).scan(new EventParser.Handler() {
                @Override
                public void event(RawEvent event) {
                    if (event.cat == RawEvent.CAT_KERNEL && event.complete) {
                        seen[0]++;
                    }
                }

                @Override
                public void baseTimeNanoseconds(long ns) {
                }

                @Override
                public void distributedRank(int rank) {
                }

                @Override
                public void eventsStarted() {
                }
            });
        }
        return seen[0];
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

    @Test
    void damaged_unquoted_values_go_to_the_jackson_path_and_give_its_verdict() throws IOException {
        // values that are not JSON but start like one: the scanner must not accept them on their first character
        String[] damaged = {"12\"3", "1.2.3", "1-2", "01", "-", "1.", "1e", "1.5e+", "tru", "falsey", "nul", "nulll",
                "12x", "0x1F", "+1", ".5", "--1", "1e5.5", "00", "-01", "012345678901234567", "1\u0001", "1.5x",
                "-1.", "1.2e"};
        String[] places = {"\"ts\":%s,\"dur\":2", "\"ts\":1,\"dur\":%s", "\"ts\":1,\"dur\":2,\"pid\":%s",
                "\"ts\":1,\"dur\":2,\"tid\":%s", "\"ts\":1,\"dur\":2,\"args\":{\"correlation\":%s}",
                "\"ts\":1,\"dur\":2,\"args\":{\"stream\":%s}",
                "\"ts\":1,\"dur\":2,\"args\":{\"blocks per SM\":%s}"};
        int i = 0;
        for (String value : damaged) {
            for (String place : places) {
                String doc = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ok\",\"pid\":0,\"ts\":1,"
                        + "\"dur\":1},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                        + String.format(place, value) + "}]}";
                sameVerdictBothPaths("d" + i++ + ".json", doc);
            }
        }
    }

    @Test
    void numbers_read_in_one_pass_and_those_left_to_the_general_path_give_identical_summaries() throws IOException {
        // ByteCursor.plainNumberLength takes -?(0|[1-9][0-9]*)(.[0-9]+)? followed by , } ] or whitespace in one pass;
        // the same digits before any other byte, 19-digit ids and exponents take the general path
        String[] values = {"0", "-0", "7", "-7", "7 ", "7\n", "7\t", "7\r\n", "0.5", "-0.5 ", "2.50\n",
                "123456789012345678", "-123456789012345678", "999999999999999999", "1234567890123456789",
                "9223372036854775807", "9223372036854775808", "12345678901234567890123", "1e3", "1.5E2 ", "null",
                // ts and dur as Kineto writes them, read eight digits at a time (ByteCursor.quickMicros)
                "1682725898870912", "1682725898870912.5", "1682725898870912.123456", "25.0", "1.2345", "1.9995",
                "0.0005", "0.00049", "12345678.1234567", "12345678.12345678", "99999999", "100000000 ",
                "9223372036854774", "9223372036854775", "-1682725898870912.9999", "00", "01.5", "1.", "-", "1.5e3"};
        String[] places = {"\"ts\":%s,\"dur\":2", "\"ts\":1,\"dur\":%s", "\"ts\":1,\"dur\":2,\"pid\":%s",
                "\"ts\":1,\"dur\":2,\"tid\":%s", "\"ts\":1,\"dur\":2,\"args\":{\"correlation\":%s}",
                "\"ts\":1,\"dur\":2,\"args\":{\"External id\":%s,\"stream\":%s}",
                "\"ts\":1,\"dur\":2,\"args\":{\"blocks per SM\":%s,\"grid\":[%s,1,%s]}"};
        int i = 0;
        for (String value : values) {
            for (String place : places) {
                String filled = place.replace("%s", value);
                String doc = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ok\",\"pid\":0,\"ts\":1,"
                        + "\"dur\":1},{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":0,"
                        + "\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"correlation\":7}},{\"ph\":\"X\",\"cat\":\"kernel\","
                        + "\"name\":\"k\"," + (place.contains("pid") ? "" : "\"pid\":0,") + filled + "}]}";
                assertThat(sameVerdictBothPaths("n" + i++ + ".json", doc)).as(doc).isInstanceOf(TraceSummary.class);
            }
        }
    }

    @Test
    void shape_arrays_recognised_by_their_raw_bytes_give_identical_summaries() throws IOException {
        // Shape arrays seen before are recognised by comparing raw bytes: arrays sharing their first 16+ bytes (more
        // than fit in one set of ways), one array a prefix of a longer one, short arrays followed by different bytes,
        // and spellings that differ only in spaces must each keep their own compact text, in one file and across
        // files read by the same thread.
        String[] dims = {"[[2048, 1], [1, 2]]", "[[2048, 1], [1, 2, 3]]", "[[2048, 1], [1, 2], []]", "[[2048,1],[1,2]]",
                "[[2048, 1], [1, 4]]", "[[2048, 1], [1, 5]]", "[[2048, 1], [1, 6]]", "[[2048, 1], [1, 7]]",
                "[[2048, 1], [1, 8]]", "[[2048, 1], [1, 9]]", "[[2048, 1], [1, 10]]", "[[6], []]", "[[6]]", "[]",
                "[\"float\", \"float\"]", "[\"float\", \"Scalar\"]"};
        for (int file = 0; file < 2; file++) {
            StringBuilder doc = new StringBuilder("{\"traceEvents\":[");
            int n = 0;
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < dims.length; i++) {
                    String d = dims[(i + round + file) % dims.length];
                    String type = dims[(i + 2 * round + 1) % dims.length];
                    int id = ++n;
                    doc.append(id == 1 ? "" : ",")
                            .append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,")
                            .append("\"ts\":").append(100 * id).append(",\"dur\":50,\"args\":{\"External id\":")
                            .append(id).append(",\"Input Dims\":").append(d).append(",\"Input type\":").append(type)
                            .append("}},{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,")
                            .append("\"tid\":1,\"ts\":").append(100 * id + 60).append(",\"dur\":5,\"args\":{")
                            .append("\"Input Dims\":").append(d).append("}}");
                }
            }
            doc.append("]}");
            Path path = Files.writeString(dir.resolve("raw-shapes" + file + ".json"), doc);
            assertThat(scannedKernels(path)).isZero(); // read by the scanner itself, not handed to the tolerant path
            TraceSummary fast = sameSummaryBothPaths(path);
            assertThat(fast.details().operators()).extracting(OperatorStats::inputDims)
                    .contains("[[2048, 1], [1, 2]]", "[[2048, 1], [1, 2, 3]]", "[[2048, 1], [1, 2], []]", "[[6], []]",
                            "[[6]]", "[]", "[\"float\", \"Scalar\"]");
        }
    }

    @Test
    void record_shapes_arrays_and_thread_ids_in_every_spelling_give_identical_summaries() throws IOException {
        // the scanner copies plain shape arrays byte by byte and decodes the rest the general way; tid may be a number
        // or a thread name, and alternate between the two for the same text
        String[] dims = {"[[2, 3], [3, 4]]", "[[2,3],[3,4]]", "[ [2 , 3] ,\n [3,4] ]", "[[], []]", "[]",
                "[[1.5, -2], [1e3, true, null, false]]", "[\"float\", \"c10::BFloat16\"]", "[\"a\\\"b\"]",
                "[\"\u00b5\"]", "[\"µs\"]", "[{\"a\":1}, [2]]", "[[[1]], [[2, [3]]]]",
                "[1 2]", "[1,]", "[,1]", "[[1]2]", "[\"a\"\"b\"]", "[01]", "[1.]", "[[1], ]"};
        String[] tids = {"7", "\"7\"", "7", "\"main\"", "-1", "1.5", "12345678901234567890123", "null", "\"7\""};
        int n = 0;
        for (String d : dims) {
            StringBuilder doc = new StringBuilder("{\"traceEvents\":[");
            for (int i = 0; i < tids.length; i++) {
                String tid = tids[i];
                doc.append(i == 0 ? "" : ",")
                        .append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":")
                        .append(tid).append(",\"ts\":").append(100 * i).append(",\"dur\":50,\"args\":{\"External id\":")
                        .append(i + 1).append(",\"Input Dims\":").append(d).append(",\"Input type\":").append(d)
                        .append(",\"Input Strides\":").append(d).append(",\"Concrete Inputs\":").append(d).append("}},")
                        .append("{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,")
                        .append("\"tid\":").append(tid).append(",\"ts\":").append(100 * i + 10)
                        .append(",\"dur\":5,\"args\":{\"correlation\":").append(i + 1).append(",\"External id\":")
                        .append(i + 1).append("}},")
                        .append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":")
                        .append(100 * i + 20).append(",\"dur\":30,\"args\":{\"correlation\":").append(i + 1)
                        .append(",\"External id\":").append(i + 1).append(",\"stream\":7}}");
            }
            doc.append("]}");
            Path file = Files.writeString(dir.resolve("shapes" + n++ + ".json"), doc);
            Object fast = summaryOrError(file, true);
            Object jackson = summaryOrError(file, false);
            assertThat(fast).as(d).isEqualTo(jackson);
            boolean wellFormed = n <= 12;
            if (d.contains("\\u")) {
                continue; // \\u escapes: the scanner hands the file over by design
            }
            if (wellFormed) { // read by the scanner itself, not handed over
                assertThat(scannedKernels(file)).as(d).isEqualTo(tids.length);
            } else { // refused by the scanner, so the tolerant path's verdict above is the result
                assertThatThrownBy(() -> scannedKernels(file)).as(d).isInstanceOf(FastEventScanner.Bail.class);
            }
            if (fast instanceof TraceSummary summary && d.equals("[[2, 3], [3, 4]]")) {
                // the well-formed case really reaches the joins: one op shape, nine timed calls of it
                assertThat(summary.details().operators()).hasSize(1);
                assertThat(summary.details().operators().get(0).inputDims()).isEqualTo("[[2, 3], [3, 4]]");
                assertThat(summary.details().roofline()).isNotEmpty();
            }
        }
    }
}
