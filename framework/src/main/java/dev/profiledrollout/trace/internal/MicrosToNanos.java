package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apiguardian.api.API;

/**
 * Converts the decimal text of a Kineto {@code ts}/{@code dur} value (microseconds) into whole nanoseconds
 * without passing through {@code double}.
 *
 * <p>Kineto prints {@code {us}.{ns%1000:03}} ({@code docs/TRACES.md} §1.5), so the text is exact in ns; absolute epoch
 * µs with three decimals need 19 digits, which a double cannot hold. Digits beyond the third fractional
 * one are rounded half-up (away from zero). Exponent forms and values that overflow the fast path fall
 * back to {@link BigDecimal}.
 */
@API(status = INTERNAL, since = "0.1")
public final class MicrosToNanos {

    private MicrosToNanos() {
    }

    /**
     * Parses {@code text} (for example {@code "1712181098123456.789"}, {@code "41.4"}, {@code ".5"},
     * {@code "3e2"}) as microseconds and returns nanoseconds.
     *
     * @param text the number's decimal text, not null
     * @return the value in ns, rounded half-up
     * @throws NumberFormatException when the text is not a finite decimal number ({@code inf}, {@code NaN},
     *                               empty) or does not fit in a {@code long} of ns
     */
    public static long parse(String text) {
        return parse(text.toCharArray(), 0, text.length(), text);
    }

    /**
     * {@link #parse(String)} of {@code len} chars at {@code off}, without allocating on the fast path.
     *
     * @throws NumberFormatException as {@link #parse(String)}
     */
    public static long parse(char[] chars, int off, int len) {
        return parse(chars, off, len, null);
    }

    private static long parse(char[] chars, int off, int len, String original) {
        int n = off + len;
        int i = off;
        boolean negative = false;
        if (i < n && (chars[i] == '-' || chars[i] == '+')) {
            negative = chars[i] == '-';
            i++;
        }
        long whole = 0;
        int wholeDigits = 0;
        while (i < n && isDigit(chars[i])) {
            whole = whole * 10 + (chars[i] - '0');
            wholeDigits++;
            i++;
        }
        long fraction = 0;
        int fractionDigits = 0;
        boolean roundUp = false;
        if (i < n && chars[i] == '.') {
            i++;
            while (i < n && isDigit(chars[i])) {
                int digit = chars[i] - '0';
                if (fractionDigits < 3) {
                    fraction = fraction * 10 + digit;
                } else if (fractionDigits == 3) {
                    roundUp = digit >= 5;
                }
                fractionDigits++;
                i++;
            }
        }
        if (i != n || wholeDigits + fractionDigits == 0 || wholeDigits > 15) {
            return viaBigDecimal(original != null ? original : new String(chars, off, len));
        }
        for (int k = Math.min(fractionDigits, 3); k < 3; k++) {
            fraction *= 10;
        }
        long ns = whole * 1000 + fraction + (roundUp ? 1 : 0);
        return negative ? -ns : ns;
    }

    private static long viaBigDecimal(String text) {
        try {
            return new BigDecimal(text.trim()).movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
        } catch (ArithmeticException e) {
            throw new NumberFormatException("µs value out of range for ns: " + text);
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
