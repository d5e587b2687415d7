package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The eight-bytes-at-a-time digit helpers of ByteCursor against a byte-by-byte reading. */
class ByteCursorDigitsTest {

    private static long word(byte[] bytes) {
        return java.nio.ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    @Test
    void non_digits_flags_exactly_the_bytes_outside_0_to_9_for_every_byte_value_in_every_position() {
        Random random = new Random(5);
        for (int value = 0; value < 256; value++) {
            for (int at = 0; at < 8; at++) {
                byte[] bytes = new byte[8];
                for (int i = 0; i < 8; i++) {
                    bytes[i] = (byte) ('0' + random.nextInt(10));
                }
                bytes[at] = (byte) value;
                long flags = ByteCursor.nonDigits(word(bytes));
                boolean digit = value >= '0' && value <= '9';
                assertThat(flags).as("byte %d at %d", value, at).isEqualTo(digit ? 0L : 0x80L << (8 * at));
            }
        }
    }

    @Test
    void eight_digits_and_leading_digits_read_the_value_of_the_digits() {
        Random random = new Random(6);
        for (int n = 0; n < 100_000; n++) {
            byte[] bytes = new byte[8];
            for (int i = 0; i < 8; i++) {
                bytes[i] = (byte) ('0' + random.nextInt(10));
            }
            String text = new String(bytes, StandardCharsets.US_ASCII);
            assertThat(ByteCursor.eightDigits(word(bytes))).as(text).isEqualTo(Long.parseLong(text));
            int k = 1 + random.nextInt(7);
            bytes[k] = (byte) ",}] \n\t\r.e\"".charAt(random.nextInt(10)); // what may follow a number's digits
            assertThat(ByteCursor.leadingDigits(word(bytes), k)).as("%s, %d digits", text, k)
                    .isEqualTo(Long.parseLong(text.substring(0, k)));
        }
        assertThat(ByteCursor.eightDigits(word("99999999".getBytes(StandardCharsets.US_ASCII)))).isEqualTo(99_999_999L);
        assertThat(ByteCursor.leadingDigits(word("0000000,".getBytes(StandardCharsets.US_ASCII)), 7)).isZero();
    }
}
