package dev.profiledrollout.history.stats;

import org.apiguardian.api.API;

/** A threshold model that tests one current value against the values of earlier runs. */
@API(status = API.Status.EXPERIMENTAL)
public interface ThresholdModel {

    /**
     * @param measure what is compared and which way is better
     * @param current this run's value, in the measure's unit
     * @param history earlier runs' values, oldest first (the model uses the latest of them up to its window)
     * @return the verdict; {@link Change#INSUFFICIENT_HISTORY} when the history is shorter than {@link #minimumHistory()}
     * @throws IllegalArgumentException if {@code current} or a history value is NaN or infinite
     */
    ThresholdResult evaluate(Measure measure, double current, double[] history);

    /** The fewest history runs the model needs. */
    int minimumHistory();
}
