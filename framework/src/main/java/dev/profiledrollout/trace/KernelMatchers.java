package dev.profiledrollout.trace;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
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
     * @throws IllegalArgumentException when the expression is invalid; the message names the pattern, the syntax
     *                                  error and its position ({@link #invalid(String, PatternSyntaxException)}), the
     *                                  cause is the {@link PatternSyntaxException}
     */
    public static Predicate<String> matching(String regex) {
        try {
            return new NamePattern("matching /" + regex + "/", regex, compile(regex));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(invalid("kernel pattern matching(\"" + regex + "\")", e), e);
        }
    }

    /**
     * The message for an invalid regular expression: what it was given as, the syntax error, the expression with a
     * caret under the position of the error, and the fix. For example, for {@code @SimulatedEngine(slowKernel)}:
     *
     * <pre>
     * &#64;SimulatedEngine(slowKernel) "(gemm" is not a valid regular expression: Unclosed group at index 5
     *   (gemm
     *        ^
     * Fix the expression (java.util.regex.Pattern syntax; escape ( [ { . * + ? with a backslash to match them
     * literally), or use KernelMatchers.glob("*name*") for a plain part of the name.
     * </pre>
     *
     * @param what where the expression came from, e.g. an annotation attribute
     * @param e    the compiler's error, not null
     */
    public static String invalid(String what, PatternSyntaxException e) {
        String regex = e.getPattern() == null ? "" : e.getPattern();
        int index = Math.max(0, Math.min(e.getIndex(), regex.length()));
        return what + " \"" + regex + "\" is not a valid regular expression: " + e.getDescription()
                + (e.getIndex() >= 0 ? " at index " + e.getIndex() : "") + "\n  " + regex + "\n  " + " ".repeat(index)
                + "^\nFix the expression (java.util.regex.Pattern syntax; escape ( [ { . * + ? with a backslash to "
                + "match them literally), or use KernelMatchers.glob(\"*name*\") for a plain part of the name.";
    }

    /**
     * The expression a predicate of this class was made from: the regex of {@link #matching(String)} or the glob of
     * {@link #glob(String)}, as given.
     *
     * @return the expression, or empty for any other predicate
     */
    public static Optional<String> source(Predicate<String> filter) {
        return filter instanceof NamePattern p ? Optional.of(p.source()) : Optional.empty();
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
        return new NamePattern("matching glob '" + glob + "'", glob, compile(regex.toString()));
    }

    /** A name predicate that describes itself in failure messages, e.g. {@code matching /.*gemm.*}/}. */
    private record NamePattern(String description, String source, Pattern pattern) implements Predicate<String> {

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
