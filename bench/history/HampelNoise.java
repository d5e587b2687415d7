import dev.profiledrollout.history.stats.Boundaries;
import dev.profiledrollout.history.stats.Direction;
import dev.profiledrollout.history.stats.Measure;
import dev.profiledrollout.history.stats.StudentT;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The false-alarm rate of Student's t on pure normal noise, over every run of the window and over the runs the Hampel
 * identifier keeps (the framework's own {@code StudentT}, {@code HampelFilter}): per window length, WINDOWS seeded
 * windows of N(100, 5²) draws and one new draw each, at a cumulative-probability boundary. Prints one row per window
 * length. Nothing is asserted; bench/README.md ("A spread robust to one outlying run") keeps the figures.
 *
 * <p>Usage: {@code HampelNoise WINDOWS BOUNDARY K LENGTH...}
 */
public final class HampelNoise {

    private HampelNoise() {
    }

    public static void main(String[] args) {
        int windows = Integer.parseInt(args[0]);
        double boundary = Double.parseDouble(args[1]);
        double k = Double.parseDouble(args[2]);
        Measure measure = new Measure("noise", "ms", Direction.LOWER_IS_BETTER);
        Boundaries upper = Boundaries.upper(boundary);
        System.out.printf(Locale.ROOT, "| runs in the window | t over every run | t over the runs Hampel k = %s keeps |"
                + " windows |%n|---|---|---|---|%n", k);
        for (int a = 3; a < args.length; a++) {
            int length = Integer.parseInt(args[a]);
            StudentT all = new StudentT(length, upper);
            StudentT kept = new StudentT(length, upper, k);
            int alarmsAll = 0;
            int alarmsKept = 0;
            for (int seed = 0; seed < windows; seed++) {
                SplittableRandom random = new SplittableRandom(seed * 1_000_003L + length);
                double[] history = new double[length];
                for (int i = 0; i < length; i++) {
                    history[i] = 100 + 5 * random.nextGaussian();
                }
                double current = 100 + 5 * random.nextGaussian();
                alarmsAll += all.evaluate(measure, current, history).regressed() ? 1 : 0;
                alarmsKept += kept.evaluate(measure, current, history).regressed() ? 1 : 0;
            }
            System.out.printf(Locale.ROOT, "| %d | %.3f %% | %.3f %% | %,d |%n", length, 100.0 * alarmsAll / windows,
                    100.0 * alarmsKept / windows, windows);
        }
    }
}
