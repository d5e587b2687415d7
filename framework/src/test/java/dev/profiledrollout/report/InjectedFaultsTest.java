package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.simulator.SimulatorConfig;
import dev.profiledrollout.simulator.internal.SimulatedPerformance;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's {@code simulated_faults} go from its {@code /server_info} through {@code summary.json}'s
 * {@code engine} (written and read as {@link RunHeader.SimulatedFaults}) to the report's "faults injected" line.
 */
class InjectedFaultsTest {

    @Test
    void every_fault_the_simulator_reports_is_named_on_the_page(@TempDir Path dir) {
        // GIVEN a simulator slowed in every way it can be, as its /server_info says
        SimulatorConfig config = SimulatorConfig.builder().tpSize(2).slowKernel("gemm", 1.5).slowRank(1, 2.0).slowDecode(2.5)
                .slowPrefill(1.25).slowHost(3.0).build();
        ObjectNode serverInfo = JsonNodeFactory.instance.objectNode();
        SimulatedPerformance.write(serverInfo, config, 1.0);
        RunReport report = new RunReport(dir, "InjectedFaultsTest.run", URI.create("http://127.0.0.1:30000"), true,
                new ServerInfo(2, 1, 1, 1, "m", true, serverInfo), new LoadSpec(1, 1, 16, 4, 0.0, 0, 0),
                ProfileRequest.builder().build());

        // WHEN summary.json is written and its page rendered
        report.writeSummary(RunFixtures.latency(), null, null);
        ReportData data = ReportData.read(dir);
        String html = HtmlReport.summaryHtml(data);

        // THEN the file keeps the simulator's block as it was sent, and the page names each fault
        assertThat((com.fasterxml.jackson.databind.JsonNode) ResultsModule.MAPPER.valueToTree(
                data.head().engine().simulatedFaults()))
                .isEqualTo(serverInfo.get("simulated_faults"));
        assertThat(html).contains("simulator slowed on purpose: kernels /gemm/ ×1.5, TP rank 1 ×2.0, decode kernels"
                + " ×2.5, prefill kernels ×1.25, host time per step ×3.0");
    }
}
