package dev.profiledrollout.junit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.engine.ServerInfo;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnreachableWindowTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SECOND = 1_000_000_000L;

    /** A {@code /server_info} answer as the simulator gives it: one scheduler's state. */
    private static ServerInfo info(long forwardCt, int waiting, int running) throws Exception {
        return ServerInfo.fromJson(JSON.readTree("{\"tp_size\":1,\"internal_states\":[{\"forward_ct\":" + forwardCt
                + ",\"waiting_queue_size\":" + waiting + ",\"running_batch_size\":" + running + "}]}"));
    }

    private static UnreachableWindow window() {
        return new UnreachableWindow(1104, "start_step=1100, num_steps=4", Duration.ofSeconds(2));
    }

    @Test
    void an_engine_idle_below_the_write_step_for_the_settle_time_is_unreachable() throws Exception {
        UnreachableWindow w = window();

        assertThat(w.observe(info(1031, 0, 0), 0)).isEmpty();
        assertThat(w.observe(info(1031, 0, 0), 2 * SECOND - 1)).isEmpty();
        assertThat(w.observe(info(1031, 0, 0), 2 * SECOND)).hasValueSatisfying(why -> assertThat(why)
                .contains("step 1031 (forward_ct)").contains("start_step=1100, num_steps=4")
                .contains("only when step 1104 begins"));
    }

    @Test
    void a_moving_counter_or_a_request_in_the_engine_restarts_the_settle_time() throws Exception {
        UnreachableWindow w = window();
        w.observe(info(1000, 0, 0), 0);
        assertThat(w.observe(info(1001, 0, 0), SECOND)).isEmpty();
        assertThat(w.observe(info(1001, 0, 0), 2 * SECOND)).as("1 s at step 1001").isEmpty();
        assertThat(w.observe(info(1001, 0, 1), 4 * SECOND)).as("a running request").isEmpty();
        assertThat(w.observe(info(1001, 1, 0), 5 * SECOND)).as("a waiting request").isEmpty();
        assertThat(w.observe(info(1001, 0, 0), 6 * SECOND)).isEmpty();
        assertThat(w.observe(info(1001, 0, 0), 8 * SECOND)).isPresent();
    }

    @Test
    void an_engine_at_or_past_the_write_step_may_still_be_exporting() throws Exception {
        UnreachableWindow w = window();
        for (long t = 0; t <= 10; t++) {
            assertThat(w.observe(info(1104, 0, 0), t * SECOND)).isEmpty();
        }
    }

    @Test
    void an_engine_that_does_not_report_its_counter_or_queue_is_never_judged() throws Exception {
        UnreachableWindow w = window();
        ServerInfo noCounter = ServerInfo.fromJson(JSON.readTree(
                "{\"internal_states\":[{\"waiting_queue_size\":0,\"running_batch_size\":0}]}"));
        ServerInfo noQueue = ServerInfo.fromJson(JSON.readTree("{\"internal_states\":[{\"forward_ct\":5}]}"));
        for (long t = 0; t <= 10; t++) {
            assertThat(w.observe(noCounter, t * SECOND)).isEmpty();
            assertThat(w.observe(noQueue, t * SECOND)).isEmpty();
            assertThat(w.observe(null, t * SECOND)).isEmpty();
        }
    }

    @Test
    void rejects_a_write_step_below_one_and_a_settle_time_that_is_not_positive() {
        assertThatThrownBy(() -> new UnreachableWindow(0, "num_steps=1", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("writeStep");
        assertThatThrownBy(() -> new UnreachableWindow(5, "num_steps=1", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("settle");
    }
}
