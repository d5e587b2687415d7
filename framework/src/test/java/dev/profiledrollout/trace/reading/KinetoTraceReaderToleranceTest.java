package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parser hazards of {@code docs/TRACES.md} §1.6 on small crafted inputs. */
class KinetoTraceReaderToleranceTest {

    @TempDir
    Path dir;

    private Path write(String name, String json) throws IOException {
        return Files.writeString(dir.resolve(name), json);
    }

    private static String kernel(String name, Object pid, String ts, String dur, String args) {
        return "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + name + "\",\"pid\":" + pid + ",\"tid\":7,\"ts\":" + ts
                + ",\"dur\":" + dur + ",\"args\":{" + args + "}}";
    }

    @Test
    void should_read_a_bare_array_of_events() throws IOException {
        Path file = write("bare.json", "[" + kernel("a", 0, "10", "5", "") + "," + kernel("a", 0, "20", "3", "") + "]");

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.kernelEvents()).isEqualTo(2);
        assertThat(summary.kernels()).usingRecursiveFieldByFieldElementComparatorIgnoringFields("p50Ns", "p99Ns")
                .containsExactly(new KernelStats("a", 2, 8_000, 3_000, 5_000));
        assertThat(summary.devices()).containsExactly(new DeviceStats("0", 8_000, 13_000));
        assertThat(summary.warnings()).isEmpty();
    }

    @Test
    void should_read_ts_and_dur_given_as_numeric_strings() throws IOException {
        // rpd2tracing writes string ts/dur (µs = ns/1000.0)
        Path file = write("strings.json", "{\"traceEvents\":[" + kernel("a", "\"2\"", "\"10.5\"", "\"2.25\"", "")
                + ",{\"ph\":\"X\",\"cat\":\"Memset\",\"pid\":\"2\",\"ts\":\"11\",\"dur\":\"4\"}]}");

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.kernels()).usingRecursiveFieldByFieldElementComparatorIgnoringFields("p50Ns", "p99Ns")
                .containsExactly(new KernelStats("a", 1, 2_250, 2_250, 2_250));
        assertThat(summary.memoryEvents()).isEqualTo(1);
        assertThat(summary.devices()).containsExactly(new DeviceStats("2", 4_500, 4_500));
    }

    @Test
    void should_accept_inf_nan_and_integers_wider_than_64_bits_in_args() throws IOException {
        Path file = write("hazards.json", "{\"traceEvents\":["
                + kernel("a", 0, "1", "1", "\"blocks per SM\":inf,\"x\":-inf,\"y\":nan,\"z\":NaN,\"w\":Infinity,"
                        + "\"Comms Id\":123456789012345678901234567890123,\"neg\":-98765432109876543210987654321")
                + ",{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH\",\"pid\":0,\"ts\":5,\"dur\":0,"
                + "\"args\":{\"memory bandwidth (GB/s)\":inf,\"text\":\"inf nan\"}}]}");

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.kernelEvents()).isEqualTo(1);
        assertThat(summary.memoryEvents()).isEqualTo(1);
        assertThat(summary.devices()).containsExactly(new DeviceStats("0", 1_000, 4_000));
        assertThat(summary.warnings()).singleElement().asString().contains("4 bare inf/nan literals");
    }

    @Test
    void should_skip_events_missing_ph_cat_or_dur_and_count_unparseable_times() throws IOException {
        Path file = write("missing.json", "[{}, ,{\"cat\":\"kernel\",\"name\":\"no ph\",\"pid\":0,\"ts\":1,\"dur\":1},"
                + "{\"ph\":\"X\",\"name\":\"no cat\",\"pid\":0,\"ts\":1,\"dur\":1},"
                + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"no dur\",\"pid\":0,\"ts\":1},"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"cpu\",\"pid\":99,\"ts\":1,\"dur\":100},"
                + kernel("bad ts", 0, "\"soon\"", "1", "") + "," + kernel("nan dur", 0, "1", "NaN", "") + ","
                + kernel("ok", 0, "1", "1", "") + ",]");

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.kernels()).extracting(KernelStats::name).containsExactly("ok");
        assertThat(summary.warnings()).anySatisfy(w -> assertThat(w).contains("skipped 2 GPU events"));
    }

    @Test
    void should_replace_invalid_utf8_in_names() throws IOException {
        byte[] head = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"ts\":1,\"dur\":1,\"name\":\"k".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}]".getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(head);
        bytes.write(new byte[] {(byte) 0xff, (byte) 0xfe});
        bytes.write(tail);
        Path file = Files.write(dir.resolve("utf8.json"), bytes.toByteArray());

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.kernelEvents()).isEqualTo(1);
        assertThat(summary.kernels().get(0).name()).startsWith("k").contains("\uFFFD");
    }

    @Test
    void should_return_a_partial_summary_and_a_warning_for_a_truncated_gzip() throws IOException {
        // GIVEN the first half of a real trace's gzip bytes
        Path real = TestTraces.traceFilter(0);
        byte[] all = Files.readAllBytes(real);
        Path cut = Files.write(dir.resolve("cut.json.gz"), Arrays.copyOf(all, all.length / 2));
        TraceSummary full = KinetoTraceReader.read(real);
        // WHEN
        TraceSummary partial = KinetoTraceReader.read(cut);
        // THEN
        assertThat(partial.warnings()).singleElement().asString().startsWith("truncated or damaged at line");
        assertThat(partial.kernelEvents()).isPositive().isLessThan(full.kernelEvents());
        assertThat(partial.kernelTotalNs()).isPositive().isLessThan(full.kernelTotalNs());
    }

    @Test
    void should_return_a_partial_summary_for_truncated_plain_json() throws IOException {
        Path file = write("cut.json", "{\"traceEvents\":[" + kernel("a", 0, "1", "1", "") + "," + kernel("b", 0, "3", "1", "")
                + ",{\"ph\":\"X\",\"cat\":\"kern");

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.kernelEvents()).isEqualTo(2);
        assertThat(summary.warnings()).singleElement().asString().contains("truncated or damaged");
    }

    @Test
    void should_detect_gzip_by_magic_bytes_not_by_name() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write(("[" + kernel("a", 0, "1", "2", "") + "]").getBytes(StandardCharsets.UTF_8));
        }
        Path file = Files.write(dir.resolve("actually-gzip.json"), bytes.toByteArray());

        assertThat(KinetoTraceReader.read(file).kernelTotalNs()).isEqualTo(2_000);
    }

    @Test
    void should_throw_TraceFormatException_naming_the_file_for_non_traces() throws IOException {
        Path text = write("notes.json", "hello, this is not JSON");
        Path object = write("config.json", "{\"model\":\"Qwen3-8B\",\"tp\":2}");
        Path empty = write("empty.json", "");
        Path scalar = write("scalar.json", "42");
        Path binary = Files.write(dir.resolve("binary.json.gz"), new byte[] {0x1f, (byte) 0x8b, 1, 2, 3, 4, 5});

        for (Path file : new Path[] {text, object, empty, scalar, binary}) {
            assertThatThrownBy(() -> KinetoTraceReader.read(file))
                    .isInstanceOf(TraceFormatException.class)
                    .hasMessageStartingWith(file + " is not a Kineto trace: ");
        }
        assertThatThrownBy(() -> KinetoTraceReader.read(object)).hasMessageContaining("without a \"traceEvents\" array");
    }

    @Test
    void should_give_the_same_busy_and_span_whether_baseTimeNanoseconds_comes_before_or_after_events()
            throws IOException {
        String events = "\"traceEvents\":[" + kernel("a", 9, "1000.125", "2.5", "") + ","
                + kernel("b", 9, "1001.000", "3.000", "") + "," + kernel("a", 9, "2000.001", "0.999", "") + "]";
        Path before = write("before.json", "{\"baseTimeNanoseconds\":1776000000000000000," + events + "}");
        Path after = write("after.json", "{" + events + ",\"baseTimeNanoseconds\":1776000000000000000,\"traceName\":\"x\"}");

        TraceSummary a = KinetoTraceReader.read(before);
        TraceSummary b = KinetoTraceReader.read(after);

        // [1000125, 1002625) ∪ [1001000, 1004000) ∪ [2000001, 2001000)
        assertThat(a.devices()).containsExactly(new DeviceStats("9", 3_875 + 999, 1_000_875));
        assertThat(b.devices()).isEqualTo(a.devices());
        assertThat(b.kernels()).isEqualTo(a.kernels());
    }

    @Test
    void should_convert_absolute_epoch_microseconds_to_exact_nanoseconds() throws IOException {
        // A double cannot hold 1712181098123456789; via double the 212 ns span below comes out wrong.
        Path file = write("epoch.json", "[" + kernel("a", 0, "1712181098123456.789", "0", "") + ","
                + kernel("a", 0, "1712181098123457.001", "0.000", "") + "]");

        TraceSummary summary = KinetoTraceReader.read(file);

        assertThat(summary.spanNs()).isEqualTo(212);
        long viaDouble = Math.round(Double.parseDouble("1712181098123457.001") * 1000)
                - Math.round(Double.parseDouble("1712181098123456.789") * 1000);
        assertThat(viaDouble).as("the double route this reader must avoid").isNotEqualTo(212);
    }

    @Test
    void should_key_devices_by_string_pid_and_sort_numeric_ids_numerically() throws IOException {
        Path file = write("merged.json", "[" + kernel("a", "\"[TP01] 0\"", "1", "1", "") + "," + kernel("a", 10, "1", "1", "")
                + "," + kernel("a", 2, "1", "1", "") + "," + kernel("a", "\"[TP00] 0\"", "1", "1", "") + "]");

        assertThat(KinetoTraceReader.read(file).devices()).extracting(DeviceStats::id)
                .containsExactly("2", "10", "[TP00] 0", "[TP01] 0");
    }
}
