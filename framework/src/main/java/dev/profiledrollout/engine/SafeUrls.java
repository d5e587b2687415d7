package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.net.URI;
import java.net.URISyntaxException;
import org.apiguardian.api.API;

/** Engine and router URLs as every report writes them: nothing that may hold a credential. */
@API(status = INTERNAL, since = "0.1")
public final class SafeUrls {

    private SafeUrls() {
    }

    /**
     * @param url an engine or router URL, possibly with user info ({@code http://user:token@host}) or a query
     *            ({@code ?token=…})
     * @return the URL without user info, query or fragment; unparseable input becomes {@code "<unparseable URL>"}
     */
    public static String of(String url) {
        try {
            URI u = new URI(url);
            return new URI(u.getScheme(), null, u.getHost(), u.getPort(), u.getPath(), null, null).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return "<unparseable URL>";
        }
    }
}
