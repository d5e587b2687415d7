package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * Kernel name predicates for {@link TraceSummary#kernels(Predicate)} and {@link TraceSet#kernels(Predicate)}.
 *
 * <p>Both factories match the <em>whole</em> name, case-insensitively: {@code matching("gemm")} does not
 * select {@code "ampere_sgemm_128x64_nn"}; write {@code matching(".*gemm.*")} or {@code glob("*gemm*")}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class KernelMatchers {

    private KernelMatchers() {
    }

    /**
     * Names that the regular expression matches as a whole ({@link java.util.regex.Matcher#matches()}),
     * case-insensitively.
     *
     * @param regex a {@link Pattern} expression, not null
     * @throws java.util.regex.PatternSyntaxException when the expression is invalid
     */
    public static Predicate<String> matching(String regex) {
        return new NamePattern("matching /" + regex + "/", compile(regex));
    }

    private static Pattern compile(String regex) {
        return Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    /**
     * Names that the glob matches as a whole, case-insensitively: {@code *} is any run of characters
     * (including none), {@code ?} exactly one; every other character is literal.
     *
     * @param glob the glob, not null
     */
    public static Predicate<String> glob(String glob) {
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (c == '*' || c == '?') {
                if (literal.length() > 0) {
                    regex.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                regex.append(c == '*' ? "(?s).*" : "(?s).");
            } else {
                literal.append(c);
            }
        }
        if (literal.length() > 0) {
            regex.append(Pattern.quote(literal.toString()));
        }
        return new NamePattern("matching glob '" + glob + "'", compile(regex.toString()));
    }

    /** A name predicate that describes itself in failure messages, e.g. {@code matching /.*gemm.*}/}. */
    private record NamePattern(String description, Pattern pattern) implements Predicate<String> {

        @Override
        public boolean test(String name) {
            return pattern.matcher(name).matches();
        }

        @Override
        public String toString() {
            return description;
        }
    }
}
