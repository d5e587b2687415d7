package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.profiledrollout.metrics.LatencyDistribution;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** summary.json's latency objects: every {@code pNNMs} at most {@code maxMs}. */
class LatencyJsonPercentileTest {

    @Test
    void no_percentile_in_the_json_exceeds_the_recorded_maximum() throws Exception {
        // the values of the report that printed "TTFT p99 212.861 vs max 212.798"
        LatencyDistribution ttft = LatencyDistribution.of("TTFT", new long[]{120_400_000L, 180_250_000L,
                199_999_000L, 212_798_000L});

        JsonNode json = ResultsModule.newMapper().valueToTree(ttft);

        assertThat(json.get("maxMs").asDouble()).isEqualTo(212.798);
        assertThat(json.get("p99Ms").asDouble()).isEqualTo(212.798);
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (field.getKey().matches("p\\d+Ms")) {
                assertThat(field.getValue().asDouble()).as(field.getKey())
                        .isLessThanOrEqualTo(json.get("maxMs").asDouble());
            }
        }
    }
}
