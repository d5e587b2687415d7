package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code FastEventScanner.integerOf}, which turns an unquoted thread id into a number, against what it replaced:
 * {@code Long.parseLong}, with {@link RawEvent#NONE} for anything it refuses.
 */
class ThreadIdNumbersTest {

    private static long parseLongOrNone(String text) {
        if (text == null || text.isEmpty() || (text.charAt(0) != '-' && (text.charAt(0) < '0' || text.charAt(0) > '9'))) {
            return RawEvent.NONE;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return RawEvent.NONE;
        }
    }

    @Test
    void reads_every_length_and_sign_as_long_parse_long_does() {
        List<String> values = new ArrayList<>(List.of("0", "-0", "7", "-7", "00", "-007", "23695", "4037",
                "123456789012345678", "-123456789012345678", "999999999999999999", "-999999999999999999",
                "1234567890123456789", "-1234567890123456789", "9223372036854775807", "-9223372036854775808",
                "9223372036854775808", "-9223372036854775809", "12345678901234567890123", "-", "--1", "+5", "1.5",
                "-1.5", "1e3", "12a", "7 ", "", "null", "true", "\u0661\u0662"));
        Random random = new Random(27);
        for (int i = 0; i < 20_000; i++) {
            int digits = 1 + random.nextInt(20);
            StringBuilder s = new StringBuilder(random.nextBoolean() ? "-" : "");
            for (int d = 0; d < digits; d++) {
                s.append((char) ('0' + random.nextInt(10)));
            }
            values.add(s.toString());
        }
        for (String value : values) {
            assertThat(FastEventScanner.integerOf(value)).as(value).isEqualTo(parseLongOrNone(value));
        }
        assertThat(FastEventScanner.integerOf(null)).isEqualTo(RawEvent.NONE);
    }

    @Test
    void tells_apart_the_ids_a_trace_carries() {
        assertThat(FastEventScanner.integerOf("23695")).isEqualTo(23695L);
        assertThat(FastEventScanner.integerOf("-1")).isEqualTo(-1L);
        assertThat(FastEventScanner.integerOf("123456789012345678")).isEqualTo(123456789012345678L);
        assertThat(FastEventScanner.integerOf("1.5")).isEqualTo(RawEvent.NONE);
    }
}
