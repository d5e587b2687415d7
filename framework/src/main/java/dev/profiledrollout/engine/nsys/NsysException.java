package dev.profiledrollout.engine.nsys;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/** An nsys command failed or printed something unusable; the message quotes the command and says what to check. */
@API(status = EXPERIMENTAL, since = "0.1")
public class NsysException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message the command, exit code, standard error and the fix */
    public NsysException(String message) {
        super(message);
    }

    /** @param message the command and the fix; @param cause the underlying failure */
    public NsysException(String message, Throwable cause) {
        super(message, cause);
    }
}
