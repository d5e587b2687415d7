package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import org.apiguardian.api.API;

/**
 * The {@code requests.jsonl} line of a record: one JSON object per request with its counts and its timestamps as
 * nanoseconds relative to the run's origin (the earliest intended send), so that service latency, schedule lag
 * and schedule-corrected latency can all be recomputed. Stateless and thread-safe.
 *
 * <p>Keys: {@code index}, {@code inputTokensRequested} (−1 for a text prompt), {@code outputTokensRequested},
 * {@code promptTokens} and {@code completionTokens} (from the server's {@code usage}/{@code meta_info}; −1 when
 * absent), {@code intendedNs}, {@code sendNs}, {@code firstChunkNs} (−1 when none), {@code endNs},
 * {@code scheduleLagNs} (send − intended), {@code ttftNs} and {@code e2eNs} (from the send; −1 when not reached),
 * {@code chunks}, {@code error} and {@code errorMessage} (null on success).
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class RequestLog {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestLog() {
    }

    /** @return the earliest intended send of the records, the origin of the relative timestamps; 0 when empty */
    public static long origin(List<RequestRecord> records) {
        return records.stream().mapToLong(RequestRecord::intendedNanos).min().orElse(0);
    }

    /** @return the record as one JSON object, timestamps relative to {@code originNanos} */
    public static ObjectNode toJson(RequestRecord r, long originNanos) {
        ObjectNode line = JSON.createObjectNode();
        line.put("index", r.index());
        line.put("inputTokensRequested", r.inputTokensRequested());
        line.put("outputTokensRequested", r.outputTokensRequested());
        line.put("promptTokens", r.promptTokens());
        line.put("completionTokens", r.completionTokens());
        line.put("intendedNs", r.intendedNanos() - originNanos);
        line.put("sendNs", r.startNanos() - originNanos);
        line.put("firstChunkNs", r.firstTokenNanos() >= 0 ? r.firstTokenNanos() - originNanos : -1);
        line.put("endNs", r.endNanos() - originNanos);
        line.put("scheduleLagNs", r.scheduleLagNanos());
        line.put("ttftNs", r.firstTokenNanos() >= 0 ? r.firstTokenNanos() - r.startNanos() : -1);
        line.put("e2eNs", r.succeeded() ? r.endNanos() - r.startNanos() : -1);
        line.put("chunks", r.chunkCount());
        line.put("error", r.error() == null ? null : r.error().name());
        line.put("errorMessage", r.errorMessage());
        return line;
    }

    /**
     * Writes one line per record, in the given order.
     *
     * @throws UncheckedIOException when the writer fails
     */
    public static void writeJsonl(List<RequestRecord> records, Writer out) {
        long origin = origin(records);
        try {
            for (RequestRecord r : records) {
                out.write(toJson(r, origin).toString());
                out.write('\n');
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write requests.jsonl", e);
        }
    }
}
