package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.trace.TraceSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Some rank files of a capture are complete and the others stopped coming: the window fails without waiting out the
 * trace timeout, and keeps the files that did arrive.
 */
final class MissingRankFilesException extends ProfiledRolloutException {

    private static final long serialVersionUID = 1L;

    private final transient List<Path> arrived;
    private transient ProfilerCapture.Collected collected = ProfilerCapture.Collected.NONE;

    MissingRankFilesException(String message, List<Path> arrived) {
        super(message);
        this.arrived = List.copyOf(arrived);
    }

    /** The complete files found, where the engine wrote them. */
    List<Path> arrived() {
        return arrived;
    }

    /** @return this exception, carrying the files of the whole capture that were collected */
    MissingRankFilesException collected(ProfilerCapture.Collected files) {
        this.collected = files;
        return this;
    }

    /** The files of the capture collected into {@code traces/}, none when the shortfall stopped the collection. */
    ProfilerCapture.Collected collected() {
        return collected;
    }

    /** @return the collected rank files as a partial capture, null when there are none or they cannot be read */
    TraceSet readCollected() {
        try {
            return collected.rankFiles().isEmpty() ? null : TraceSet.read(collected.rankFiles());
        } catch (IOException | RuntimeException unreadable) {
            addSuppressed(unreadable);
            return null;
        }
    }
}
