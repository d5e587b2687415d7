package dev.profiledrollout.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SseDecoderTest {

    private static List<String> decode(int splitEvery, String stream) {
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        SseDecoder decoder = new SseDecoder();
        List<String> events = new ArrayList<>();
        for (int i = 0; i < bytes.length; i += splitEvery) {
            ByteBuf slice = Unpooled.wrappedBuffer(bytes, i, Math.min(splitEvery, bytes.length - i));
            decoder.feed(slice, (b, off, len) -> events.add(new String(b, off, len, StandardCharsets.UTF_8)));
        }
        return events;
    }

    @Test
    void should_decode_the_same_events_whatever_the_line_endings_and_the_read_boundaries() {
        String lf = "data: {\"a\":1}\n\ndata: [DONE]\n\n";
        for (String stream : List.of(lf, lf.replace("\n", "\r\n"), lf.replace("\n", "\r"))) {
            for (int split : new int[] {1, 2, 3, 7, 1000}) {
                assertThat(decode(split, stream)).as("split %d of %s", split, stream.replace("\r", "\\r")
                        .replace("\n", "\\n")).containsExactly("{\"a\":1}", "[DONE]");
            }
        }
    }

    @Test
    void should_join_data_lines_skip_comments_and_other_fields_and_keep_utf8_split_across_reads() {
        String stream = "\uFEFF: keep-alive comment\nevent: message\nid: 7\nretry: 10\ndata:first\ndata: second\n\n"
                + "data\n\ndata: caf\u00e9 \u2603\n\n";
        for (int split : new int[] {1, 4, 1000}) {
            assertThat(decode(split, stream)).containsExactly("first\nsecond", "", "caf\u00e9 \u2603");
        }
    }

    @Test
    void should_not_dispatch_an_event_without_data_or_one_left_open_at_the_end() {
        assertThat(decode(1000, "event: ping\n\n: only a comment\n\ndata: cut off")).isEmpty();
        assertThat(decode(1000, "datum: x\n\ndata:x\n\n")).containsExactly("x");
    }

    @Test
    void should_decode_from_a_direct_buffer_as_from_a_heap_one() {
        byte[] bytes = "data: {\"a\":1}\r\n\r\ndata: x\n\n".getBytes(StandardCharsets.UTF_8);
        ByteBuf direct = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        List<String> events = new ArrayList<>();
        new SseDecoder().feed(direct, (b, off, len) -> events.add(new String(b, off, len, StandardCharsets.UTF_8)));
        direct.release();
        assertThat(events).containsExactly("{\"a\":1}", "x");
    }

    @Test
    void should_stop_when_the_listener_says_so() {
        SseDecoder decoder = new SseDecoder();
        List<String> seen = new ArrayList<>();
        boolean more = decoder.feed(Unpooled.copiedBuffer("data: 1\n\ndata: 2\n\n", StandardCharsets.UTF_8),
                (b, off, len) -> {
                    seen.add(new String(b, off, len, StandardCharsets.UTF_8));
                    return false;
                });
        assertThat(more).isFalse();
        assertThat(seen).containsExactly("1");
    }
}
