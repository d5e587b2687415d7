package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * "Did you mean" for misspelt keys and attribute values: the nearest known name by edit distance (insertions,
 * deletions, substitutions and transpositions of adjacent characters each count one, so {@code ulr} is one edit from
 * {@code url}), case-insensitive.
 */
@API(status = INTERNAL, since = "0.1")
public final class Suggestions {

    private Suggestions() {
    }

    /**
     * @param given a name that is not known
     * @param known the known names
     * @return the known name nearest to {@code given}, when it is close enough to be a likely typo: at most a third
     *         of the longer name's length in edits (and at least 2 allowed); the first of equally near ones
     */
    public static Optional<String> nearest(String given, Collection<String> known) {
        String needle = given.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int d = distance(needle, candidate.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        if (best == null || bestDistance == 0) {
            return Optional.ofNullable(best);
        }
        int allowed = Math.max(2, Math.max(needle.length(), best.length()) / 3);
        return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** The optimal-string-alignment distance between {@code a} and {@code b}. */
    static int distance(String a, String b) {
        int n = a.length();
        int m = b.length();
        int[][] d = new int[n + 1][m + 1];
        for (int i = 0; i <= n; i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= m; j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= m; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[n][m];
    }
}
