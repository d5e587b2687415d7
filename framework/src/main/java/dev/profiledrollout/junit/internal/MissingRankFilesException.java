package dev.profiledrollout.junit.internal;

import dev.profiledrollout.ProfiledRolloutException;
import java.nio.file.Path;
import java.util.List;

/**
 * Some rank files of a capture are complete and the others stopped coming: the window fails without waiting out the
 * trace timeout, and keeps the files that did arrive.
 */
final class MissingRankFilesException extends ProfiledRolloutException {

    private static final long serialVersionUID = 1L;

    private final transient List<Path> arrived;

    MissingRankFilesException(String message, List<Path> arrived) {
        super(message);
        this.arrived = List.copyOf(arrived);
    }

    /** The complete files found, where the engine wrote them. */
    List<Path> arrived() {
        return arrived;
    }
}
