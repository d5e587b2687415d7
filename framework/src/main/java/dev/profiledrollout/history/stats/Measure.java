package dev.profiledrollout.history.stats;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What a threshold model compares: a display name ({@code "p99 TTFT"}), the unit the values are in ({@code "ms"},
 * empty for none; used only in {@link ThresholdResult#describe()}) and which way is better.
 */
@API(status = API.Status.EXPERIMENTAL)
public record Measure(String name, String unit, Direction direction) {

    /**
     * @throws IllegalArgumentException if {@code name} is blank
     * @throws NullPointerException if any argument is null
     */
    public Measure {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(direction, "direction");
        if (name.isBlank()) {
            throw new IllegalArgumentException("Measure name is blank: give the measure a display name such as \"p99 TTFT\"");
        }
    }
}
