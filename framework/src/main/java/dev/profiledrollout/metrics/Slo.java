package dev.profiledrollout.metrics;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apiguardian.api.API;

/**
 * A goodput SLO set as {@code vllm bench serve --goodput ttft:MS tpot:MS e2el:MS} defines it ({@code docs/METRICS.md}
 * §2): a request is good iff it succeeded and <em>every</em> given metric is ≤ its SLO; TPOT counts as 0 for a request
 * with ≤ 1 output token; {@code request_goodput = good / duration} (the DistServe definition). Immutable.
 *
 * @param ttft TTFT bound, or null when not part of the SLO
 * @param tpot TPOT bound ((E2E − TTFT)/(n − 1), n from the server's usage), or null
 * @param e2e  E2E latency bound, or null
 */
@API(status = EXPERIMENTAL, since = "0.1")
public record Slo(Duration ttft, Duration tpot, Duration e2e) {

    /**
     * Parses vLLM's {@code --goodput} values, e.g. {@code ["ttft:200", "tpot:50"]} (milliseconds, decimals allowed).
     *
     * @throws IllegalArgumentException naming the accepted keys
     */
    public static Slo parse(List<String> pairs) {
        Duration ttft = null;
        Duration tpot = null;
        Duration e2e = null;
        for (String pair : pairs) {
            String[] kv = pair.split(":", 2);
            double ms;
            try {
                ms = kv.length == 2 ? Double.parseDouble(kv[1]) : Double.NaN;
            } catch (NumberFormatException e) {
                ms = Double.NaN;
            }
            if (!(ms >= 0)) {
                throw new IllegalArgumentException("goodput SLO '" + pair + "' must be KEY:MILLISECONDS, e.g. ttft:200");
            }
            Duration d = Duration.ofNanos(Math.round(ms * 1e6));
            switch (kv[0].strip().toLowerCase(Locale.ROOT)) {
                case "ttft" -> ttft = d;
                case "tpot" -> tpot = d;
                case "e2el" -> e2e = d;
                default -> throw new IllegalArgumentException("unknown goodput metric '" + kv[0]
                        + "': use ttft, tpot or e2el (vLLM's names)");
            }
        }
        return new Slo(ttft, tpot, e2e);
    }

    /** @return the SLO set with no bound: every successful request is good */
    public static Slo none() {
        return new Slo(null, null, null);
    }

    /**
     * @return the bounds in vLLM's {@code --goodput} syntax, in the order ttft, tpot, e2el, milliseconds without
     *         trailing zeros, e.g. {@code ["ttft:250", "tpot:20.5"]}; empty when no bound is set. {@link #parse}
     *         reads it back to an equal SLO.
     */
    public List<String> toPairs() {
        List<String> pairs = new java.util.ArrayList<>();
        if (ttft != null) {
            pairs.add("ttft:" + millis(ttft));
        }
        if (tpot != null) {
            pairs.add("tpot:" + millis(tpot));
        }
        if (e2e != null) {
            pairs.add("e2el:" + millis(e2e));
        }
        return List.copyOf(pairs);
    }

    private static String millis(Duration d) {
        return java.math.BigDecimal.valueOf(d.toNanos(), 6).stripTrailingZeros().toPlainString();
    }

    /** @return true when no bound is set */
    public boolean isEmpty() {
        return ttft == null && tpot == null && e2e == null;
    }

    /**
     * @param r a record
     * @return true when it succeeded and meets every bound given (service latencies, from the actual send)
     */
    public boolean isGood(RequestRecord r) {
        if (!r.succeeded()) {
            return false;
        }
        long ttftNs = r.firstTokenNanos() - r.startNanos();
        long e2eNs = r.endNanos() - r.startNanos();
        long tpotNs = r.completionTokens() > 1 ? (e2eNs - ttftNs) / (r.completionTokens() - 1) : 0;
        return (ttft == null || ttftNs <= ttft.toNanos()) && (tpot == null || tpotNs <= tpot.toNanos())
                && (e2e == null || e2eNs <= e2e.toNanos());
    }

    /** @return the number of good requests */
    public long goodCount(List<RequestRecord> records) {
        return records.stream().filter(this::isGood).count();
    }

    /** @return good requests per second of {@code duration} (vLLM's {@code request_goodput}); 0 for a zero duration */
    public double requestGoodput(List<RequestRecord> records, Duration duration) {
        return duration.isZero() ? 0 : goodCount(records) * 1e9 / duration.toNanos();
    }
}
