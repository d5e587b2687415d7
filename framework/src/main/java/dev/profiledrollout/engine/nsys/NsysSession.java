package dev.profiledrollout.engine.nsys;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One row of {@code nsys sessions list} ({@code docs/PROTOCOLS.md} §4).
 *
 * @param id    the numeric session ID as printed, e.g. {@code 10345602}; not null
 * @param name  the session name, e.g. {@code profile-345586} or the {@code --session-new} value; not null
 * @param state {@code DelayedCollection} (launched with {@code --start-later}, not collecting) or {@code Collection};
 *              {@code ""} when not printed
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record NsysSession(String id, String name, String state) {

    public NsysSession {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        state = state == null ? "" : state;
    }
}
