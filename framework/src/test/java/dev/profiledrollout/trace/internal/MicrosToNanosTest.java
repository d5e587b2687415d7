package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MicrosToNanosTest {

    @ParameterizedTest(name = "{0} µs = {1} ns")
    @CsvSource({
        "1712181098123456.789, 1712181098123456789",
        "4458676983543.183, 4458676983543183",
        "41.407, 41407",
        "0, 0",
        "7, 7000",
        "2.5, 2500",
        ".5, 500",
        "5., 5000",
        "+3, 3000",
        "-1.25, -1250",
        "1.0004, 1000",
        "1.0005, 1001",
        "-1.0005, -1001",
        "0.0009999, 1",
        "1e3, 1000000",
        "1.5E-3, 2",
        "9223372036854775.807, 9223372036854775807",
        "1712181098123456.7896, 1712181098123456790",
    })
    void should_convert_decimal_microseconds_exactly(String micros, String nanos) {
        assertThat(MicrosToNanos.parse(micros)).isEqualTo(Long.parseLong(nanos));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "NaN", "Infinity", "-INF", "inf", "abc", "1.2.3", "99999999999999999999"})
    void should_reject_non_finite_or_out_of_range_text(String text) {
        assertThatThrownBy(() -> MicrosToNanos.parse(text)).isInstanceOf(NumberFormatException.class);
    }
}
