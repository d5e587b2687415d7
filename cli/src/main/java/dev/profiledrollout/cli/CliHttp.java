package dev.profiledrollout.cli;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.load.LoadTarget;
import java.net.URI;
import java.time.Duration;
import okhttp3.OkHttpClient;

/**
 * The OkHttp client and load target of the router-facing commands: the bearer token from
 * {@code PROFILEDROLLOUT_API_KEY}, if set.
 */
final class CliHttp {

    static final String API_KEY_ENV = ProfiledRolloutKeys.environmentVariable(ProfiledRolloutKeys.API_KEY);

    private CliHttp() {
    }

    static final String ADMIN_API_KEY_ENV = ProfiledRolloutKeys.environmentVariable(ProfiledRolloutKeys.ADMIN_API_KEY);

    /** @return SGLang's admin API key from the environment ({@code PROFILEDROLLOUT_ADMIN_API_KEY}), or null */
    static String adminApiKey() {
        String key = System.getenv(ADMIN_API_KEY_ENV);
        return key == null || key.isBlank() ? null : key.trim();
    }

    /** @return the API key from the environment, or null */
    static String apiKey() {
        String key = System.getenv(API_KEY_ENV);
        return key == null || key.isBlank() ? null : key.trim();
    }

    static OkHttpClient client(Duration readTimeout) {
        OkHttpClient.Builder b = new OkHttpClient.Builder().readTimeout(readTimeout);
        String key = apiKey();
        if (key != null) {
            b.addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
                    .header("Authorization", "Bearer " + key).build()));
        }
        return b.build();
    }

    /** @return {@code base} with the API key from the environment, if set */
    static LoadTarget loadTarget(URI base) {
        return LoadTarget.builder(base).bearerToken(apiKey()).build();
    }

    static void close(OkHttpClient http) {
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }
}
