package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import okhttp3.OkHttpClient;
import org.apiguardian.api.API;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where a {@link LoadGenerator} sends its requests and how: the server root, extra request headers (typically
 * {@code Authorization}), and for {@code https} the certificates to trust and whether the host name is checked.
 * Immutable; {@link #toString()} names the headers but never shows their values.
 *
 * <pre>{@code
 * LoadTarget target = LoadTarget.builder(URI.create("https://gpu-node:30000"))
 *         .bearerToken(System.getenv("PROFILEDROLLOUT_API_KEY"))
 *         .trustManager(myTrustManager)
 *         .build();
 * }</pre>
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class LoadTarget {

    /**
     * Headers the load generator's transport writes itself (framing, content negotiation and connection handling of
     * its streamed POST), lower case; a target may not set them.
     */
    static final Set<String> TRANSPORT_HEADERS = Set.of("host", "content-type", "content-length", "accept",
            "accept-encoding", "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade");

    private final URI baseUri;
    private final List<Map.Entry<String, String>> headers;
    private final X509TrustManager trustManager;
    private final boolean hostnameVerification;

    private LoadTarget(Builder b) {
        this.baseUri = b.baseUri;
        this.headers = List.copyOf(b.headers);
        this.trustManager = b.trustManager;
        this.hostnameVerification = b.hostnameVerification;
    }

    /**
     * @param baseUri the server root, {@code http} or {@code https} with a host, e.g. {@code http://127.0.0.1:30000};
     *                a path prefix is kept
     * @return a target without extra headers, trusting the JDK's default certificates and checking host names
     * @throws IllegalArgumentException when {@code baseUri} is not such a URL
     */
    public static LoadTarget of(URI baseUri) {
        return builder(baseUri).build();
    }

    /**
     * @param baseUri as for {@link #of(URI)}
     * @return a builder; defaults: no headers, the JDK's trusted certificates, host names checked
     * @throws IllegalArgumentException when {@code baseUri} is not an absolute http(s) URL with a host
     */
    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /** @return the server root requests are resolved against */
    public URI baseUri() {
        return baseUri;
    }

    /** @return the extra request headers, in the order added; names as given */
    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    /** @return the trust manager for {@code https}, or empty for the JDK's default trusted certificates */
    public Optional<X509TrustManager> trustManager() {
        return Optional.ofNullable(trustManager);
    }

    /** @return whether an {@code https} server's certificate must name the host of {@link #baseUri()} */
    public boolean hostnameVerification() {
        return hostnameVerification;
    }

    /**
     * An OkHttp client builder configured like this target (headers added to requests that lack them, trust, host name
     * check), for the calls beside the load, e.g. the CLI's {@code /metrics} scraping. INTERNAL: it exposes OkHttp.
     */
    @API(status = API.Status.INTERNAL, since = "0.1")
    public OkHttpClient.Builder okHttpClient() {
        OkHttpClient.Builder http = new OkHttpClient.Builder();
        if (!headers.isEmpty()) {
            http.addInterceptor(chain -> {
                okhttp3.Request.Builder request = chain.request().newBuilder();
                for (Map.Entry<String, String> h : headers) {
                    if (chain.request().header(h.getKey()) == null) {
                        request.addHeader(h.getKey(), h.getValue());
                    }
                }
                return chain.proceed(request.build());
            });
        }
        if (trustManager != null) {
            try {
                SSLContext tls = SSLContext.getInstance("TLS");
                tls.init(null, new TrustManager[] {trustManager}, null);
                http.sslSocketFactory(tls.getSocketFactory(), trustManager);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot set up TLS with the load target's trust manager: "
                        + e.getMessage(), e);
            }
        }
        if (!hostnameVerification) {
            http.hostnameVerifier((host, session) -> true);
        }
        return http;
    }

    @Override
    public String toString() {
        return "LoadTarget[" + baseUri + ", headers " + headers.stream().map(Map.Entry::getKey).toList()
                + (trustManager != null ? ", own trust manager" : "")
                + (hostnameVerification ? "" : ", host names not verified") + "]";
    }

    /** Settings of a {@link LoadTarget}; not thread-safe. */
    @API(status = EXPERIMENTAL, since = "0.1")
    public static final class Builder {
        private final URI baseUri;
        private final List<Map.Entry<String, String>> headers = new ArrayList<>();
        private X509TrustManager trustManager;
        private boolean hostnameVerification = true;

        private Builder(URI baseUri) {
            Objects.requireNonNull(baseUri, "baseUri");
            String scheme = baseUri.getScheme() == null ? "" : baseUri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || baseUri.getHost() == null) {
                throw new IllegalArgumentException("The load target " + baseUri + " is not an http(s) base URL with a"
                        + " host; use e.g. http://127.0.0.1:30000");
            }
            this.baseUri = baseUri;
        }

        /**
         * Adds a header to every request; repeated names are sent repeatedly, in order.
         *
         * @param name  a header name (an HTTP token), not one the transport writes itself ({@code Host},
         *              {@code Content-Type}, {@code Content-Length}, {@code Accept}, {@code Connection}, …)
         * @param value the value; no CR, LF or NUL
         * @throws IllegalArgumentException naming the header (never its value) when either is not allowed
         */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (TRANSPORT_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("The load generator writes the " + name + " header itself; remove"
                        + " it from the load target (transport headers: " + TRANSPORT_HEADERS + ")");
            }
            HttpHeaders check = DefaultHttpHeadersFactory.headersFactory().newHeaders();
            try {
                check.add(name, value);
            } catch (IllegalArgumentException e) {
                // Netty's message gives the offending character's position only, never the value (a secret, maybe).
                throw new IllegalArgumentException("The load target's header '" + name + "' is not a valid HTTP header"
                        + " (" + e.getMessage() + "); names are tokens, values have no CR, LF or NUL", e);
            }
            headers.add(Map.entry(name, value));
            return this;
        }

        /**
         * Sends {@code Authorization: Bearer <token>} with every request, as the engines' {@code --api-key} expects.
         *
         * @param token the API key; null or blank for none, so that an unset key can be passed as it is
         */
        public Builder bearerToken(String token) {
            return token == null || token.isBlank() ? this : header("Authorization", "Bearer " + token.trim());
        }

        /**
         * @param trustManager the certificates an {@code https} server may present, e.g. the engine client's; null for
         *                     the JDK's default trusted certificates (the default)
         */
        public Builder trustManager(X509TrustManager trustManager) {
            this.trustManager = trustManager;
            return this;
        }

        /**
         * @param verify whether an {@code https} server's certificate must name the host of the base URL (default
         *               true); turn it off only for servers reached by an address their certificate does not name
         */
        public Builder hostnameVerification(boolean verify) {
            this.hostnameVerification = verify;
            return this;
        }

        /** @return the target */
        public LoadTarget build() {
            return new LoadTarget(this);
        }
    }
}
