package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.IOException;
import java.io.Reader;
import org.apiguardian.api.API;

/**
 * Rewrites the bare C {@code printf} spellings {@code inf}, {@code -inf}, {@code nan} and {@code -nan} that
 * old Kineto builds write outside strings ({@code docs/TRACES.md} §1.6: {@code memory bandwidth (GB/s)} of a 0-dur
 * memcpy, {@code blocks per SM} when numSMs is 0) into the forms Jackson accepts with
 * {@code ALLOW_NON_NUMERIC_NUMBERS} ({@code +INF}, {@code -INF}, {@code NaN}). Text inside JSON strings is
 * never touched, except for one repair: a {@code "} inside a string that is not followed (after whitespace) by
 * {@code ,}, {@code :}, <code>}</code>, {@code ]} or the end of input cannot close the string in valid JSON, so it is
 * taken for an unescaped quote written by old Kineto builds ({@code docs/TRACES.md} §1.6, HTA PR #324) and escaped.
 * Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class NonFiniteLiteralReader extends Reader {

    private static final int LOOKAHEAD = 4;

    private final Reader in;
    private final char[] input = new char[1 << 16];
    private final char[] output = new char[(1 << 16) * 2];
    private int inPos;
    private int inLimit;
    private int outPos;
    private int outLimit;
    private boolean inputDone;
    private boolean inString;
    private boolean escaped;
    private long repairs;
    private long quoteRepairs;

    /** @param in the character stream to filter, not null; closed with this reader */
    public NonFiniteLiteralReader(Reader in) {
        this.in = in;
    }

    /** Number of unescaped quotes inside strings escaped so far. */
    public long quoteRepairs() {
        return quoteRepairs;
    }

    /** Number of literals rewritten so far. */
    public long repairs() {
        return repairs;
    }

    @Override
    public int read(char[] cbuf, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (outPos == outLimit) {
            if (!fill()) {
                return -1;
            }
        }
        int n = Math.min(len, outLimit - outPos);
        System.arraycopy(output, outPos, cbuf, off, n);
        outPos += n;
        return n;
    }

    private boolean fill() throws IOException {
        System.arraycopy(input, inPos, input, 0, inLimit - inPos);
        inLimit -= inPos;
        inPos = 0;
        if (!inputDone) {
            int read = in.read(input, inLimit, input.length - inLimit);
            if (read < 0) {
                inputDone = true;
            } else {
                inLimit += read;
            }
        }
        if (inLimit == 0 && inputDone) {
            return false;
        }
        outPos = 0;
        outLimit = 0;
        while (inPos < inLimit) {
            char c = input[inPos];
            if (inString) {
                if (escaped) {
                    escaped = false;
                } else if (c == '\\') {
                    escaped = true;
                } else if (c == '"') {
                    if (inLimit - inPos < 64 && !inputDone) {
                        break; // decide with enough of what follows
                    }
                    if (closesString(inPos + 1)) {
                        inString = false;
                    } else {
                        output[outLimit++] = '\\';
                        quoteRepairs++;
                    }
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == 'i' || c == 'n' || c == '-') {
                if (inLimit - inPos < LOOKAHEAD && !inputDone) {
                    break; // a literal may straddle the buffer end: read more first
                }
                if (rewrite("-inf", "-INF") || rewrite("-nan", " NaN") || rewrite("inf", "+INF")
                        || rewrite("nan", "NaN")) {
                    continue;
                }
            }
            output[outLimit++] = c;
            inPos++;
        }
        return true;
    }

    private boolean closesString(int from) {
        for (int i = from; i < inLimit; i++) {
            char next = input[i];
            if (next == ' ' || next == '\n' || next == '\r' || next == '\t') {
                continue;
            }
            return next == ',' || next == ':' || next == '}' || next == ']';
        }
        return true;
    }

    private boolean rewrite(String literal, String replacement) {
        int n = literal.length();
        if (inLimit - inPos < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (input[inPos + i] != literal.charAt(i)) {
                return false;
            }
        }
        // "-infinity" / "infinity": keep the tail out of the output so the token stays a single literal.
        int end = inPos + n;
        if (literal.endsWith("inf") && matchesAt(end, "inity")) {
            end += "inity".length();
        }
        replacement.getChars(0, replacement.length(), output, outLimit);
        outLimit += replacement.length();
        inPos = end;
        repairs++;
        return true;
    }

    private boolean matchesAt(int at, String s) {
        if (inLimit - at < s.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (input[at + i] != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
