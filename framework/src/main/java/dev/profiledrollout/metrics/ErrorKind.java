package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/** Why a request failed. Failed requests are excluded from latency histograms and counted per kind. */
@API(status = EXPERIMENTAL, since = "0.1")
public enum ErrorKind {
    /** The server answered with a status other than 200; the message holds the status and a body snippet. */
    HTTP_STATUS,
    /** The connection could not be opened or broke before the stream ended. */
    CONNECTION,
    /** A connect, read or call timeout expired. */
    TIMEOUT,
    /** A {@code data:} event was not valid JSON, or the body was not an SSE stream. */
    MALFORMED_STREAM,
    /** The stream carried an error object ({@code {"error":{…}}} or {@code {"object":"error",…}}). */
    IN_STREAM_ERROR,
    /** HTTP 200 but no chunk with non-empty {@code choices}: vLLM's "Never received a valid chunk to calculate TTFT". */
    NO_CHUNKS,
    /** The run was cancelled or closed while the request was in flight. */
    CANCELLED
}
