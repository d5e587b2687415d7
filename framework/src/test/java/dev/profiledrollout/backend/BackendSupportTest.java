package dev.profiledrollout.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.Activity;
import dev.profiledrollout.Backend;
import dev.profiledrollout.Profiler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The seam: one support per backend, found by name and constant, and no branch on the backend outside it. */
class BackendSupportTest {

    @ParameterizedTest
    @EnumSource(Backend.class)
    void every_backend_has_its_support_under_its_lower_case_name(Backend backend) {
        BackendSupport support = BackendSupport.of(backend);
        assertThat(support.backend()).isEqualTo(backend);
        assertThat(BackendSupport.named(support.name().toUpperCase())).containsSame(support);
        assertThat(BackendSupport.names()).contains(support.name());
        assertThat(support.defaultStopTimeout()).isPositive();
    }

    @Test
    void an_unknown_name_lists_the_known_ones() {
        assertThatThrownBy(() -> BackendSupport.parse("tgi", "--backend"))
                .hasMessage("--backend must be one of sglang|vllm|trtllm, was tgi");
    }

    /** No file of the framework outside this package compares or switches on a backend constant. */
    @Test
    void no_file_outside_the_backend_package_branches_on_the_backend() throws IOException {
        Pattern branch = Pattern.compile("[=!]=\\s*Backend\\.|Backend\\.[A-Z]+\\s*[=!]=|case\\s+(SGLANG|VLLM|TRTLLM)\\b"
                + "|\\.equals\\(\"(sglang|vllm|trtllm)\"\\)");
        Path main = Path.of("src/main/java/dev/profiledrollout");
        List<String> offenders;
        try (Stream<Path> files = Files.walk(main)) {
            offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.startsWith(main.resolve("backend")))
                    .filter(p -> {
                        try {
                            return branch.matcher(Files.readString(p)).find();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).map(Path::toString).toList();
        }
        assertThat(offenders).isEmpty();
    }

    @Test
    void sglang_warns_that_shape_discovery_is_not_merged_upstream() {
        BackendSupport.Verdict verdict = BackendSupport.of(Backend.SGLANG).checkRequest(request(true), key -> Optional.empty());
        assertThat(verdict.problems()).isEmpty();
        assertThat(verdict.warnings()).singleElement().asString().contains("io_struct.py").contains("drops it silently");
        assertThat(BackendSupport.of(Backend.SGLANG).checkRequest(request(false), key -> Optional.empty()).warnings())
                .isEmpty();
    }

    @Test
    void trtllm_checks_steps_and_start_against_the_launch_span() {
        BackendSupport trtllm = BackendSupport.of(Backend.TRTLLM);
        Map<String, String> keys = Map.of("profiledrollout.trtllm.profile.start.stop", "10-20");
        BackendSupport.CaptureRequest ok = new BackendSupport.CaptureRequest(
                List.of(new BackendSupport.Window(null, 10, 10)), Profiler.TORCH, Set.of(Activity.CPU, Activity.GPU),
                false, "", true, true, "", false, false);
        assertThat(trtllm.checkRequest(ok, k -> Optional.ofNullable(keys.get(k))).problems()).isEmpty();

        BackendSupport.CaptureRequest wrongStart = new BackendSupport.CaptureRequest(
                List.of(new BackendSupport.Window(null, 10, 12)), Profiler.TORCH, Set.of(Activity.CPU, Activity.GPU),
                false, "", true, true, "", false, false);
        assertThat(trtllm.checkRequest(wrongStart, k -> Optional.ofNullable(keys.get(k))).problems())
                .singleElement().satisfies(p -> assertThat(p.fix()).contains("iteration 10"));
    }

    private static BackendSupport.CaptureRequest request(boolean shapeDiscovery) {
        return new BackendSupport.CaptureRequest(List.of(new BackendSupport.Window(null, 3, null)), Profiler.TORCH,
                Set.of(Activity.CPU, Activity.GPU), false, "", true, true, "", shapeDiscovery, shapeDiscovery);
    }
}
