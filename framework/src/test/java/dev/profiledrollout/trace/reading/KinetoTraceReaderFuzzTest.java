package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes {@link KinetoTraceReader#read(Path)} with seeded mutations of the real traces in {@code testdata/traces}
 * (system property {@code test.traces}): truncation, byte flips, huge and non-finite numbers, deep nesting, giant
 * strings, damaged gzip. Every read must end within {@value #READ_TIMEOUT_SECONDS} s with a {@link TraceSummary}
 * (possibly with warnings), a {@link TraceFormatException} or an {@link IOException}; anything else (an
 * {@code OutOfMemoryError}, a {@code RuntimeException}, a hang) fails with the seed that reproduces it.
 *
 * <p>Bounded by count, not by time, so every run reads the same mutations: {@code profiledrollout.test.fuzz.mutations}
 * (default 60; raise it for a longer session); the seed is {@code profiledrollout.test.fuzz.seed} (default 8).
 */
class KinetoTraceReaderFuzzTest {

    private static final long READ_TIMEOUT_SECONDS = 20;

    @TempDir
    Path dir;

    @Test
    void every_mutated_trace_reads_to_a_summary_or_a_typed_error_in_bounded_time() throws Exception {
        int mutations = Integer.getInteger("profiledrollout.test.fuzz.mutations", 60);
        long seed = Long.getLong("profiledrollout.test.fuzz.seed", 8);
        List<byte[]> seeds = new ArrayList<>();
        for (Path trace : TestTraces.jsonTraces()) {
            if (Files.size(trace) < 512 * 1024) {
                seeds.add(gunzip(trace));
            }
        }
        assertThat(seeds).as("real traces under " + TestTraces.root()).isNotEmpty();
        Random random = new Random(seed);
        ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-reader");
            t.setDaemon(true);
            return t;
        });
        int done = 0;
        int summaries = 0;
        int typedErrors = 0;
        long start = System.nanoTime();
        try {
            for (; done < mutations; done++) {
                byte[] original = seeds.get(random.nextInt(seeds.size()));
                int kind = random.nextInt(7);
                String what = "mutation " + done + " (seed " + seed + ", kind " + kind + ")";
                byte[] mutated = mutate(original, kind, random);
                boolean gzip = kind == 6 || random.nextBoolean();
                Path file = dir.resolve("fuzz-" + done + (gzip ? ".json.gz" : ".json"));
                Files.write(file, gzip ? gzipMaybeCut(mutated, kind == 6, random) : mutated);
                Future<TraceSummary> read = reader.submit(() -> KinetoTraceReader.read(file));
                try {
                    assertThat(read.get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS)).as(what).isNotNull();
                    summaries++;
                } catch (TimeoutException e) {
                    read.cancel(true);
                    fail(what + ": the read did not end within " + READ_TIMEOUT_SECONDS + " s");
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (!(cause instanceof IOException)) {
                        throw new AssertionError(what + ": untyped failure " + cause, cause);
                    }
                    assertThat(cause.getMessage()).as(what + " message").isNotBlank();
                    typedErrors++;
                }
                Files.delete(file);
            }
        } finally {
            reader.shutdownNow();
        }
        System.out.printf("trace reader fuzz: %d mutations in %d ms: %d summaries, %d typed errors%n", done,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), summaries, typedErrors);
        assertThat(done).as("mutations read").isEqualTo(mutations);
        assertThat(summaries + typedErrors).as("every read ended in a summary or a typed error").isEqualTo(mutations);
        assertThat(typedErrors).as("some mutations damage the trace beyond reading").isPositive();
        assertThat(summaries).as("some mutations leave a readable trace").isPositive();
    }

    /** One mutation of {@code in}; {@code kind} picks the operation. */
    static byte[] mutate(byte[] in, int kind, Random random) {
        switch (kind) {
            case 0: // truncation
                return java.util.Arrays.copyOf(in, random.nextInt(in.length));
            case 1: { // byte flips
                byte[] out = in.clone();
                int flips = 1 + random.nextInt(64);
                for (int i = 0; i < flips; i++) {
                    out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return out;
            }
            case 2: { // huge or non-finite numbers in place of a number
                String[] huge = {"1e999999", "-1e400", "123456789012345678901234567890123456789", "NaN", "Infinity",
                    "-9223372036854775809", "1" + "0".repeat(5000)};
                return replaceNumber(in, huge[random.nextInt(huge.length)], random);
            }
            case 3: { // deep nesting inside the first event
                int depth = 2_000 + random.nextInt(200_000);
                return insertAfter(in, "\"traceEvents\"", ": [{\"args\":" + "[".repeat(depth) + "]".repeat(depth)
                        + "}, ", true);
            }
            case 4: { // a giant string as a name
                int length = 1_000_000 + random.nextInt(30_000_000);
                return insertAfter(in, "\"traceEvents\"", ": [{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":1,\"dur\":1,"
                        + "\"name\":\"" + "k".repeat(length) + "\"}, ", true);
            }
            case 5: { // random garbage spliced in
                byte[] out = in.clone();
                int at = random.nextInt(out.length);
                int len = Math.min(out.length - at, 1 + random.nextInt(4096));
                for (int i = 0; i < len; i++) {
                    out[at + i] = (byte) random.nextInt(256);
                }
                return out;
            }
            default:
                return in;
        }
    }

    private static byte[] replaceNumber(byte[] in, String replacement, Random random) {
        String text = new String(in, StandardCharsets.ISO_8859_1);
        int from = random.nextInt(text.length());
        int at = -1;
        for (int i = from; i < text.length(); i++) {
            if (text.charAt(i) == ':' && i + 1 < text.length() && (Character.isDigit(text.charAt(i + 1))
                    || text.charAt(i + 1) == '-')) {
                at = i + 1;
                break;
            }
        }
        if (at < 0) {
            return in;
        }
        int end = at + 1;
        while (end < text.length() && "0123456789.eE+-".indexOf(text.charAt(end)) >= 0) {
            end++;
        }
        return (text.substring(0, at) + replacement + text.substring(end)).getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Replaces the {@code ": ["} after {@code key} (or appends at the start) with {@code insert}. */
    private static byte[] insertAfter(byte[] in, String key, String insert, boolean unused) {
        String text = new String(in, StandardCharsets.ISO_8859_1);
        int k = text.indexOf(key);
        if (k < 0) {
            return (insert + text).getBytes(StandardCharsets.ISO_8859_1);
        }
        int open = text.indexOf('[', k);
        int at = k + key.length();
        return (text.substring(0, at) + insert + text.substring(open + 1)).getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] gzipMaybeCut(byte[] plain, boolean cut, Random random) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write(plain);
        }
        byte[] out = bytes.toByteArray();
        if (!cut) {
            return out;
        }
        out = java.util.Arrays.copyOf(out, 10 + random.nextInt(Math.max(1, out.length - 10)));
        if (random.nextBoolean() && out.length > 20) {
            out[10 + random.nextInt(out.length - 10)] ^= 0x5a;
        }
        return out;
    }

    private static byte[] gunzip(Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return in.readAllBytes();
        }
    }
}
