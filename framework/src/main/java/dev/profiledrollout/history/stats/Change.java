package dev.profiledrollout.history.stats;

import org.apiguardian.api.API;

/** A threshold model's verdict on the current run against its history. */
@API(status = API.Status.EXPERIMENTAL)
public enum Change {
    /** The current value crossed the boundary limit on the worse side (see {@link Direction}). */
    REGRESSION,
    /** The current value crossed the boundary limit on the better side. */
    IMPROVEMENT,
    /** The current value lies within the boundary limits, or no boundary is set on the side it moved to. */
    NO_CHANGE,
    /** The history holds fewer runs (or samples) than the model needs; nothing was tested. */
    INSUFFICIENT_HISTORY
}
