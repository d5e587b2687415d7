package dev.profiledrollout.junit;

import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The simulators one test starts: after the test they are closed, newest first, and no thread of theirs or of a run
 * may be left ({@link ProfiledTestKit#assertNoThreadsLeft()}). Register it on an instance field:
 *
 * <pre>{@code
 * @RegisterExtension
 * final Simulators simulators = new Simulators();
 * }</pre>
 */
public final class Simulators implements AfterEachCallback {

    private final Deque<EngineSimulator> started = new ArrayDeque<>();

    /**
     * Starts a simulator that is closed after the test.
     *
     * @throws IOException as {@link EngineSimulator#start} does
     */
    public EngineSimulator start(SimulatorConfig config) throws IOException {
        EngineSimulator engine = EngineSimulator.start(config);
        started.push(engine);
        return engine;
    }

    /** {@link #start(SimulatorConfig)} of {@code config.build()}. */
    public EngineSimulator start(SimulatorConfig.Builder config) throws IOException {
        return start(config.build());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        while (!started.isEmpty()) {
            started.pop().close();
        }
        ProfiledTestKit.assertNoThreadsLeft();
    }
}
