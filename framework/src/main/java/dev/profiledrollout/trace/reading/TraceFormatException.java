package dev.profiledrollout.trace.reading;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.TraceSummary;
import java.io.IOException;
import java.nio.file.Path;
import org.apiguardian.api.API;

/**
 * Thrown when a file is not a Kineto / Chrome trace at all: not JSON, or JSON that is neither an array of
 * events nor an object with a {@code traceEvents} array. Damage inside a trace (truncation, bad values)
 * does not throw; it is reported in {@link TraceSummary#warnings()}.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public class TraceFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;

    /**
     * @param file    the file that was read, not null
     * @param problem what is wrong, phrased to complete "{@code <file> is not a Kineto trace: }"
     * @param cause   the parser error, or null
     */
    public TraceFormatException(Path file, String problem, Throwable cause) {
        super(file + " is not a Kineto trace: " + problem, cause);
        this.file = file;
    }

    /** The file that could not be read as a trace. */
    public Path file() {
        return file;
    }
}
