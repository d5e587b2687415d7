package dev.profiledrollout.engine;

import mockwebserver3.MockResponse;

/** Canned answers for the {@code MockWebServer} stand-ins of engines and routers in tests. */
public final class MockResponses {

    private MockResponses() {
    }

    /** A response with status {@code code} and the text {@code body} (may be empty). */
    public static MockResponse status(int code, String body) {
        return new MockResponse.Builder().code(code).body(body).build();
    }
}
