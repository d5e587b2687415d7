package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * PipedInflater over gzip streams of several chunks, read one after another on one thread so the later ones inflate
 * into the earlier ones' recycled chunks.
 */
class PipedInflaterTest {

    private static byte[] data(long seed, int length) {
        byte[] bytes = new byte[length];
        Random random = new Random(seed);
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) ('a' + random.nextInt(6)); // compressible, like trace JSON
        }
        return bytes;
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        }
        return out.toByteArray();
    }

    private static byte[] readAll(PipedInflater in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[10_000];
        for (int n; (n = in.read(buffer, 0, buffer.length)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    @Test
    void consecutive_streams_on_one_thread_read_exactly_their_own_bytes() throws IOException {
        for (int round = 0; round < 4; round++) {
            byte[] plain = data(round, 1_200_000 + round * 77_777); // 4 to 5 chunks and a partial one
            try (PipedInflater in = new PipedInflater(new ByteArrayInputStream(gzip(plain)))) {
                assertThat(Arrays.equals(readAll(in), plain)).as("round %d", round).isTrue();
                assertThat(in.read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void a_stream_closed_half_read_does_not_disturb_the_next_one() throws IOException {
        byte[] big = data(7, 3_000_000);
        PipedInflater first = new PipedInflater(new ByteArrayInputStream(gzip(big)));
        byte[] head = new byte[1_000_000];
        assertThat(first.readNBytes(head, 0, head.length)).isEqualTo(head.length);
        assertThat(Arrays.equals(head, Arrays.copyOf(big, head.length))).isTrue();
        first.close();
        assertThat(first.read()).as("read after close").isEqualTo(-1);
        first.close();
        byte[] next = data(8, 2_000_000);
        try (PipedInflater in = new PipedInflater(new ByteArrayInputStream(gzip(next)))) {
            assertThat(Arrays.equals(readAll(in), next)).isTrue();
        }
    }

    @Test
    void a_truncated_stream_fails_where_its_good_bytes_end() throws IOException {
        byte[] plain = data(9, 2_000_000);
        byte[] packed = gzip(plain);
        try (PipedInflater in = new PipedInflater(new ByteArrayInputStream(Arrays.copyOf(packed, packed.length / 2)))) {
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            assertThatThrownBy(() -> {
                for (int n; (n = in.read(buffer, 0, buffer.length)) > 0; ) {
                    got.write(buffer, 0, n);
                }
            }).isInstanceOf(EOFException.class);
            byte[] good = got.toByteArray();
            assertThat(good.length).isGreaterThan(0);
            assertThat(Arrays.equals(good, Arrays.copyOf(plain, good.length))).isTrue();
        }
    }
}
