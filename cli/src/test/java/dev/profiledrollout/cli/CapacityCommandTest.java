package dev.profiledrollout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class CapacityCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run capacity(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "capacity";
        System.arraycopy(args, 0, all, 1, args.length);
        int code = cli.execute(all);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void finds_the_rate_against_the_simulator_and_prints_json_with_every_stage() throws Exception {
        // 4 running requests at most: the simulator saturates near 35 req/s with these lengths
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().maxRunningRequests(4).build())) {
            Run run = capacity("--url", sim.baseUri().toString(), "--backend", "sglang", "--slo", "ttft.p90<200ms",
                    "--rate", "--start", "8", "--max", "128", "--precision", "0.1", "--random-input-len", "64",
                    "--random-output-len", "16", "--max-lag-ms", "50", "--format", "json");
            assertThat(run.exitCode()).as(run.err()).isZero();
            JsonNode json = new ObjectMapper().readTree(run.out());
            assertThat(json.path("capacity").path("status").asText()).isEqualTo("FOUND");
            double lower = json.path("capacity").path("lower").asDouble();
            double upper = json.path("capacity").path("upper").asDouble();
            assertThat(lower).isBetween(8.0, 128.0);
            assertThat((upper - lower) / (upper + lower)).isLessThanOrEqualTo(0.1);
            assertThat(json.path("stages").size()).isGreaterThanOrEqualTo(3);
            assertThat(json.path("slos").get(0).path("text").asText()).isEqualTo("ttft.p90<200ms");
        }
    }

    @Test
    void a_bad_slo_or_format_is_refused_with_the_fix() {
        Run slo = capacity("--url", "http://127.0.0.1:1", "--slo", "ttft<500");
        assertThat(slo.exitCode()).isEqualTo(2);
        assertThat(slo.err()).contains("capacity: SLO \"ttft<500\"", "\"ttft.p99<500ms\"");
        Run both = capacity("--url", "http://127.0.0.1:1", "--slo", "ttft.p99<1s", "--rate", "--concurrency");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("exclude each other");
    }
}
