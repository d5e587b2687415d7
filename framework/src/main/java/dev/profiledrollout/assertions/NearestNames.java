package dev.profiledrollout.assertions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The names nearest to a pattern that matched none of them, for a failure message that points at the typo: a budget
 * over {@code matching(".*gemmm.*")} names the GEMM kernels the trace does have.
 *
 * <p>The pattern's literal words (runs of letters and digits, at least two long, after regex escapes such as
 * {@code \d} are dropped) are each looked up in the name with an approximate substring match: the fewest edits
 * (insertions, deletions, substitutions) that turn the word into some part of the name (Sellers, "The theory and
 * computation of evolutionary distances: pattern recognition", J. Algorithms 1(4), 1980). A word found as it is
 * scores 1, one with {@code e} edits {@code 1 − e/length}; a name scores the mean over the words. Names that score
 * equally keep their given order (the callers give kernels by total time, largest first).
 */
final class NearestNames {

    private NearestNames() {
    }

    /**
     * @param pattern the regex or glob text, not null
     * @param names   the candidates, in the order to keep among equal scores
     * @param limit   how many to return at most
     * @return up to {@code limit} names, nearest first; the first {@code limit} names when the pattern has no word
     */
    static List<String> nearest(String pattern, List<String> names, int limit) {
        List<String> words = words(pattern);
        if (words.isEmpty()) {
            return names.stream().distinct().limit(limit).toList();
        }
        List<Scored> scored = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i).toLowerCase(Locale.ROOT);
            double sum = 0;
            for (String w : words) {
                sum += 1 - (double) substringDistance(w, name) / w.length();
            }
            scored.add(new Scored(names.get(i), sum / words.size(), i));
        }
        return scored.stream().sorted(Comparator.comparingDouble(Scored::score).reversed()
                        .thenComparingInt(Scored::order))
                .map(Scored::name).distinct().limit(limit).toList();
    }

    /** The literal words of a regex or glob, lower case. */
    static List<String> words(String pattern) {
        String literal = pattern.replaceAll("\\\\[a-zA-Z]", " ").toLowerCase(Locale.ROOT);
        List<String> words = new ArrayList<>();
        for (String w : literal.split("[^\\p{L}\\p{N}]+")) {
            if (w.length() >= 2) {
                words.add(w);
            }
        }
        return words;
    }

    /** The fewest edits that turn {@code word} into some substring of {@code text}. */
    static int substringDistance(String word, String text) {
        int m = word.length();
        int[] previous = new int[m + 1];
        int[] current = new int[m + 1];
        for (int i = 0; i <= m; i++) {
            previous[i] = i; // the word against an empty part of the text
        }
        int best = m;
        for (int j = 1; j <= text.length(); j++) {
            current[0] = 0; // a match may start anywhere in the text
            char c = text.charAt(j - 1);
            for (int i = 1; i <= m; i++) {
                int substitute = previous[i - 1] + (word.charAt(i - 1) == c ? 0 : 1);
                current[i] = Math.min(substitute, Math.min(previous[i] + 1, current[i - 1] + 1));
            }
            best = Math.min(best, current[m]);
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return best;
    }

    private record Scored(String name, double score, int order) {
    }
}
