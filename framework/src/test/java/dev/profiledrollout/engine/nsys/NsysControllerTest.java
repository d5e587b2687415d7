package dev.profiledrollout.engine.nsys;

import dev.profiledrollout.trace.KernelStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The nsys command lines and output parsing, against {@code nsys-standin.sh} (real nsys cannot run here). */
class NsysControllerTest {

    @TempDir
    Path dir;

    private NsysController nsys;

    @BeforeEach
    void setUp() throws IOException {
        nsys = new NsysController(NsysStandIn.install(dir).toString(), Duration.ofSeconds(30));
    }

    @Test
    void should_fall_back_to_the_plain_session_table_skipping_the_id_header() throws IOException {
        // WHEN
        List<NsysSession> sessions = nsys.sessions();
        // THEN
        assertThat(sessions).containsExactly(new NsysSession("10345602", "profile-345586", "DelayedCollection"));
        assertThat(NsysStandIn.invocations(dir)).containsExactly("sessions list -p true -f json", "sessions list");
    }

    @Test
    void should_prefer_json_sessions_and_match_the_own_session_name() throws IOException {
        // GIVEN an nsys that supports -f json
        Files.createFile(dir.resolve("json-sessions"));
        // WHEN
        String session = nsys.resolveSession(Optional.empty(), Optional.of("sglang-decode"));
        // THEN
        assertThat(session).isEqualTo("10345602");
        assertThat(NsysStandIn.invocations(dir)).containsExactly("sessions list -p true -f json");
    }

    @Test
    void should_start_and_stop_the_session_with_exact_arguments() throws IOException {
        nsys.start("profile-345586");
        nsys.stop("profile-345586");
        assertThat(NsysStandIn.invocations(dir)).containsExactly("start --session=profile-345586",
                "stop --session=profile-345586");
    }

    @Test
    void should_report_a_failed_start_with_exit_code_stderr_and_the_fix() throws IOException {
        Files.createFile(dir.resolve("fail-start"));
        NsysException e = catchThrowableOfType(NsysException.class, () -> nsys.start("x"));
        assertThat(e.getMessage()).contains("start --session=x").contains("exited with 3")
                .contains("session not found").contains("--start-later");
    }

    @Test
    void should_parse_the_cuda_gpu_kern_sum_csv_of_nsys_stats() throws IOException {
        // GIVEN
        Path report = Files.writeString(dir.resolve("decode.nsys-rep"), "report");
        // WHEN
        List<KernelStats> kernels = nsys.kernelSummary(report);
        // THEN
        assertThat(NsysStandIn.invocations(dir)).containsExactly(
                "stats --report cuda_gpu_kern_sum --format csv " + report);
        assertThat(kernels).hasSize(3);
        assertThat(kernels.get(0).name()).startsWith("void flashinfer::BatchDecodeWithPagedKVCacheKernel<")
                .contains("2u, 4u");
        assertThat(kernels.get(0)).extracting(KernelStats::count, KernelStats::totalNs, KernelStats::minNs,
                KernelStats::maxNs).containsExactly(256L, 6_130_000L, 21_000L, 30_000L);
        assertThat(kernels.get(2).name()).startsWith("ncclDevKernel_AllReduce");
    }

    @Test
    void should_export_sqlite_with_exact_arguments() throws IOException {
        nsys.exportSqlite(dir.resolve("r.nsys-rep"), dir.resolve("r.sqlite"));
        assertThat(NsysStandIn.invocations(dir)).containsExactly(
                "export --type sqlite --output " + dir.resolve("r.sqlite") + " " + dir.resolve("r.nsys-rep"));
    }

    @Test
    void should_name_the_key_when_nsys_is_missing() {
        NsysController missing = new NsysController(dir.resolve("no-such-nsys").toString(), Duration.ofSeconds(5));
        NsysException e = catchThrowableOfType(NsysException.class, missing::sessions);
        assertThat(e.getMessage()).contains("profiledrollout.nsys.path");
    }
}
