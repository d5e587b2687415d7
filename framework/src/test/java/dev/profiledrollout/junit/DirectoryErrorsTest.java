package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace or output directory that cannot be used names its key, the real path and the operating system's error;
 * a trace directory's problem does not blame the output directory. The unusable paths are unusable for any user, root
 * included, so these tests do not depend on who runs them.
 */
class DirectoryErrorsTest {

    @TempDir
    Path output;

    @TempDir
    Path scratch;

    @ProfiledRollout(numSteps = 2)
    @RolloutLoad(concurrency = 1, requests = 1, inputTokens = 8, outputTokens = 2, warmupRequests = 0)
    static class WindowTestCase {
        @Test
        void window(RolloutSession session) {
            session.awaitResult();
        }
    }

    /**
     * An existing trace directory in which no run directory can be made: {@code /proc} refuses new entries to every
     * user, root included (Linux), as a read-only or foreign-owned share refuses them to a CI user.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void an_unusable_trace_directory_names_its_key_path_and_os_error() {
        Throwable failure = failure(run(WindowTestCase.class, output, "profiledrollout.trace.dir", "/proc"));

        assertThat(failure).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("The trace directory /proc/")
                .hasMessageContaining("(profiledrollout.trace.dir=/proc) cannot be used: ")
                .hasMessageContaining("Exception: /proc/").hasMessageContaining("point profiledrollout.trace.dir at")
                .hasMessageNotContaining("output directory");
    }

    @Test
    void an_unusable_output_directory_names_its_key_path_and_os_error() throws Exception {
        Path file = Files.writeString(scratch.resolve("not-a-directory"), "x");

        Throwable failure = failure(run(WindowTestCase.class, file.resolve("out")));

        assertThat(failure).hasMessageContaining("The output directory " + file.resolve("out"))
                .hasMessageContaining("(profiledrollout.output.dir)").hasMessageContaining("Exception: ");
    }
}
