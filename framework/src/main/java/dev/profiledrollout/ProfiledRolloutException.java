package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import org.apiguardian.api.API;

/**
 * A profile window could not be completed for a reason other than an engine's HTTP error: trace files that never
 * appeared, an unreadable trace, a load that did not finish in time. The message names what was waited for, what
 * was found, and how to fix it.
 */
@API(status = STABLE, since = "0.1")
public class ProfiledRolloutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProfiledRolloutException(String message) {
        super(message);
    }

    public ProfiledRolloutException(String message, Throwable cause) {
        super(message, cause);
    }
}
