package dev.profiledrollout.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineTargetTest {

    @Test
    void should_name_a_deployment_with_the_keys_a_real_one_is_configured_with() {
        EngineTarget pd = EngineTarget.prefillDecode(URI.create("http://router:8000"),
                List.of(URI.create("http://p1:1"), URI.create("http://p2:2")), List.of(URI.create("http://d:3")))
                .traceDirectory(Path.of("/mnt/traces"), "/traces").ranks(2).vllmMaxIterations(8)
                .with("profiledrollout.api.key", "secret");

        assertThat(pd.keys()).containsEntry("profiledrollout.engine", "attach")
                .containsEntry("profiledrollout.engine.url", "http://router:8000")
                .containsEntry("profiledrollout.prefill.url", "http://p1:1,http://p2:2")
                .containsEntry("profiledrollout.decode.url", "http://d:3")
                .containsEntry("profiledrollout.trace.dir", "/mnt/traces")
                .containsEntry("profiledrollout.trace.dir.server", "/traces")
                .containsEntry("profiledrollout.engine.ranks", "2")
                .containsEntry("profiledrollout.vllm.max.iterations", "8");
        assertThat(pd.toString()).doesNotContain("secret");
        assertThat(EngineTarget.router(URI.create("http://r:1")).keys())
                .containsOnlyKeys("profiledrollout.engine", "profiledrollout.router.url");
    }

    @Test
    void should_refuse_keys_the_extension_does_not_read() {
        EngineTarget target = EngineTarget.attach(URI.create("http://e:1"));

        assertThatThrownBy(() -> target.with("profiledrollout.engine.uri", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ProfiledRolloutKeys.all()");
        assertThatThrownBy(() -> target.with("profiledrollout.load.threads", "2"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(EngineTarget::attach).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_close_what_it_was_given_after_the_class_last_first() throws Exception {
        StringBuilder closed = new StringBuilder();
        EngineTarget target = EngineTarget.attach(URI.create("http://e:1"))
                .closeAfterClass(() -> closed.append("first")).closeAfterClass(() -> closed.append("second,"));

        new dev.profiledrollout.junit.internal.ManagedEngines.Target(target).close();

        assertThat(closed).hasToString("second,first");
    }
}
