package dev.profiledrollout.history;

import dev.profiledrollout.ProfiledRolloutException;
import org.apiguardian.api.API;

/** A history store could not be opened, migrated, read or written; the message names the store and the fix. */
@API(status = API.Status.EXPERIMENTAL)
public class HistoryStoreException extends ProfiledRolloutException {

    public HistoryStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public HistoryStoreException(String message) {
        super(message);
    }
}
