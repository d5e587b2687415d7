package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.Comparator;
import org.apiguardian.api.API;

/** Sort orders shared by the trace results. */
@API(status = INTERNAL, since = "0.1")
public final class Ordering {

    private Ordering() {
    }

    /** Device ids: numeric ids first, in numeric order; then the others in string order. */
    public static final Comparator<String> DEVICE_ID = (a, b) -> {
        Long x = asLong(a);
        Long y = asLong(b);
        if (x != null && y != null) {
            int byValue = Long.compare(x, y);
            return byValue != 0 ? byValue : a.compareTo(b);
        }
        if (x != null) {
            return -1;
        }
        if (y != null) {
            return 1;
        }
        return a.compareTo(b);
    };

    private static Long asLong(String s) {
        try {
            return Long.valueOf(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
