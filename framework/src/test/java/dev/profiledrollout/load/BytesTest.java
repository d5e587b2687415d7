package dev.profiledrollout.load;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class BytesTest {

    private static int naiveIndexOf(byte[] bytes, int from, int end, byte b) {
        for (int i = from; i < end; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return end;
    }

    private static int naiveLineEnd(byte[] bytes, int from, int end) {
        return Math.min(naiveIndexOf(bytes, from, end, (byte) '\n'), naiveIndexOf(bytes, from, end, (byte) '\r'));
    }

    @Test
    void should_find_what_a_byte_by_byte_search_finds_on_random_inputs_and_bounds() {
        SplittableRandom random = new SplittableRandom(42);
        // bytes near the searched values and the high half exercise the word trick's borrows and false positives
        byte[] alphabet = {'\n', '\r', '"', 0, 1, 9, 11, 12, 14, 33, 35, (byte) 0x80, (byte) 0x8a, (byte) 0xff, 'a'};
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[random.nextInt(1, 40)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = alphabet[random.nextInt(alphabet.length)];
            }
            int from = random.nextInt(bytes.length);
            int end = random.nextInt(from, bytes.length + 1);
            assertThat(Bytes.lineEnd(bytes, from, end)).isEqualTo(naiveLineEnd(bytes, from, end));
            assertThat(Bytes.indexOf(bytes, from, end, (byte) '"')).isEqualTo(naiveIndexOf(bytes, from, end, (byte) '"'));
            assertThat(Bytes.indexOf(bytes, from, end, (byte) 0x8a)).isEqualTo(naiveIndexOf(bytes, from, end, (byte) 0x8a));
        }
    }

    @Test
    void should_find_sparse_line_ends_in_long_inputs_as_a_byte_by_byte_search_does() {
        SplittableRandom random = new SplittableRandom(43);
        // long runs of ordinary bytes with rare specials: the sixteen-byte stride, and the bytes at the edges of
        // its 0x08–0x0F pre-test (7, 8, 9, 15, 16) and high bytes that alias them (0x88, 0x8d)
        byte[] rare = {'\n', '\r', 7, 8, 9, 15, 16, (byte) 0x88, (byte) 0x8a, (byte) 0x8d};
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[random.nextInt(1, 300)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = random.nextInt(64) == 0 ? rare[random.nextInt(rare.length)] : (byte) random.nextInt(' ', 127);
            }
            int from = random.nextInt(bytes.length);
            int end = random.nextInt(from, bytes.length + 1);
            assertThat(Bytes.lineEnd(bytes, from, end)).isEqualTo(naiveLineEnd(bytes, from, end));
        }
    }

    @Test
    void should_report_the_keys_a_string_search_finds() {
        SplittableRandom random = new SplittableRandom(7);
        String[] pieces = {"\"choices\":[{", "\"choices\":[]", "\"choices\":[", "{", "[", "\"usage\":{\"prompt_tokens\":1}",
            "\"usage\":null", "\"error\":{", "\"error\":\"x\"", "\"text\":\"a\"", ",", "x", "\"", "\"usage\":", "\"choices\":"};
        for (int round = 0; round < 20_000; round++) {
            StringBuilder sb = new StringBuilder("{");
            for (int k = random.nextInt(6); k > 0; k--) {
                sb.append(pieces[random.nextInt(pieces.length)]);
            }
            String text = sb.append('}').toString();
            int expected = (text.contains("\"choices\":[{") ? Bytes.CHOICES_ARRAY : 0)
                    | (text.contains("\"usage\":{") ? Bytes.USAGE_OBJECT : 0)
                    | (text.contains("\"error\":{") ? Bytes.ERROR_OBJECT : 0);
            // bytes outside [from, end) must not count
            byte[] padded = ("\"usage\":" + text + "[{").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int from = "\"usage\":".length();
            assertThat(Bytes.chunkKeys(padded, from, from + text.length())).as(text).isEqualTo(expected);
            assertThat(Bytes.contains(padded, from, from + text.length(), "\"usage\":{".getBytes(
                    java.nio.charset.StandardCharsets.US_ASCII))).isEqualTo(text.contains("\"usage\":{"));
        }
    }
}
