package dev.profiledrollout.history.stats;

/** Turns a statistic and its critical values into a verdict, shared by all models. */
final class Decision {

    final Change change;
    final double threshold;
    final double boundary;

    private Decision(Change change, double threshold, double boundary) {
        this.change = change;
        this.threshold = threshold;
        this.boundary = boundary;
    }

    /**
     * @param statistic positive when the current value is above the baseline
     * @param upperCritical the statistic above which the upper boundary is crossed, NaN if no upper boundary
     * @param lowerCritical the (negative) statistic below which the lower boundary is crossed, NaN if none
     */
    static Decision of(Direction direction, double statistic, double upperCritical, double lowerCritical, Boundaries b) {
        boolean above = !Double.isNaN(upperCritical) && statistic > upperCritical;
        boolean below = !Double.isNaN(lowerCritical) && statistic < lowerCritical;
        boolean higherIsWorse = direction == Direction.LOWER_IS_BETTER;
        if (above) {
            return new Decision(higherIsWorse ? Change.REGRESSION : Change.IMPROVEMENT, upperCritical, b.upper());
        }
        if (below) {
            return new Decision(higherIsWorse ? Change.IMPROVEMENT : Change.REGRESSION, lowerCritical, b.lower());
        }
        boolean upperIsRegressionSide = higherIsWorse ? b.hasUpper() : !b.hasLower();
        return upperIsRegressionSide
                ? new Decision(Change.NO_CHANGE, upperCritical, b.upper())
                : new Decision(Change.NO_CHANGE, lowerCritical, b.lower());
    }

    static double[] window(double[] history, int window) {
        int from = Math.max(0, history.length - window);
        return java.util.Arrays.copyOfRange(history, from, history.length);
    }

    static void requireFinite(String what, double... values) {
        for (double v : values) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException(what + " holds " + v + ": pass only finite measurements (drop failed runs)");
            }
        }
    }

    static void requireWindow(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window " + window + " is below 1: use the number of latest runs to compare against");
        }
    }
}
