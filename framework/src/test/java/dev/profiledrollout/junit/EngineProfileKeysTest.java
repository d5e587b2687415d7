package dev.profiledrollout.junit;

import static dev.profiledrollout.junit.ProfiledTestKit.failure;
import static dev.profiledrollout.junit.ProfiledTestKit.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.profiledrollout.Activity;
import dev.profiledrollout.EngineProfile;
import dev.profiledrollout.ProfiledRollout;
import dev.profiledrollout.RolloutLoad;
import dev.profiledrollout.RolloutSession;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine profile's keys apply to every key a class reads, the history store and the report options included, and
 * those keys are validated with the others, before anything starts.
 */
class EngineProfileKeysTest {

    @TempDir
    Path output;

    @ProfiledRollout(activities = Activity.GPU)
    @RolloutLoad(requests = 2, warmupRequests = 0, concurrency = 2, inputTokens = 16, outputTokens = 4)
    @EngineProfile("nightly")
    static class ProfiledHistoryTestCase {
        @Test
        void t(RolloutSession session) {
            session.awaitResult();
        }
    }

    @Test
    void the_profile_s_history_store_records_the_run() {
        Path global = output.resolve("global.db");
        Path nightly = output.resolve("nightly.db");

        run(ProfiledHistoryTestCase.class, output,
                "profiledrollout.history.url", "jdbc:sqlite:" + global,
                "profiledrollout.profiles.nightly.history.url", "jdbc:sqlite:" + nightly)
                .testEvents().assertStatistics(s -> s.succeeded(1));

        assertThat(nightly).as("the profile's store").exists();
        assertThat(global).as("the global store, which the profile replaces").doesNotExist();
    }

    @Test
    void an_invalid_history_or_report_key_fails_before_the_window_opens() {
        Throwable t = failure(run(ProfiledHistoryTestCase.class, output,
                "profiledrollout.profiles.nightly.history.window", "many",
                "profiledrollout.report.attach.maxBytes", "20MiB",
                "profiledrollout.profiles.nightly.steps.strict", "yes"));

        assertThat(t).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("3 configuration problems")
                .hasMessageContaining("profiledrollout.history.window is \"many\", not a number")
                .hasMessageContaining("profiledrollout.report.attach.maxBytes='20MiB'")
                .hasMessageContaining("profiledrollout.profiles.nightly.steps.strict='yes': expected true or false");
        Path dir = output.resolve("EngineProfileKeysTest$ProfiledHistoryTestCase/t");
        assertThat(dir.resolve("requests.jsonl")).doesNotExist();
        assertThat(dir.resolve("traces")).doesNotExist();
    }
}
