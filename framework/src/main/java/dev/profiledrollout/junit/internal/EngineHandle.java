package dev.profiledrollout.junit.internal;

import dev.profiledrollout.SimulatedEngine;
import dev.profiledrollout.engine.ServerInfo;
import dev.profiledrollout.engine.SglangClient;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * One engine for one test class: either the embedded simulator this handle started (and stops on {@link #close()}),
 * or an attached server it only talks to. Kept in the class-level {@code ExtensionContext.Store}, so JUnit closes it
 * after the class.
 */
public final class EngineHandle implements AutoCloseable {

    private final EngineSimulator simulator; // null when attached
    private final SglangClient client;
    private final ServerInfo serverInfo;
    private final String model;

    private EngineHandle(EngineSimulator simulator, SglangClient client, ServerInfo serverInfo, String model) {
        this.simulator = simulator;
        this.client = client;
        this.serverInfo = serverInfo;
        this.model = model;
    }

    /** Starts the embedded simulator (shaped by {@code @SimulatedEngine} when present) or attaches, then awaits health. */
    public static EngineHandle open(Settings settings, Optional<SimulatedEngine> shape) {
        EngineSimulator simulator = null;
        URI uri;
        if (settings.engineKind() == Settings.EngineKind.EMBEDDED) {
            simulator = startSimulator(shape);
            uri = simulator.baseUri();
        } else {
            uri = settings.engineUrl();
        }
        SglangClient.Builder builder = SglangClient.builder(uri).stopProfileTimeout(settings.stopTimeout());
        settings.apiKey().ifPresent(builder::apiKey);
        SglangClient client = builder.build();
        try {
            client.awaitHealthy(settings.healthTimeout());
            ServerInfo info = client.serverInfo();
            String model = client.models().stream().findFirst().orElse(info.servedModelName());
            return new EngineHandle(simulator, client, info, model);
        } catch (RuntimeException e) {
            client.close();
            if (simulator != null) {
                simulator.close();
            }
            throw e;
        }
    }

    private static EngineSimulator startSimulator(Optional<SimulatedEngine> shape) {
        SimulatorConfig.Builder config = SimulatorConfig.builder();
        if (shape.isPresent()) {
            SimulatedEngine s = shape.get();
            require(s.tpSize() >= 1, "tpSize", s.tpSize(), "at least 1");
            require(s.maxRunningRequests() >= 1, "maxRunningRequests", s.maxRunningRequests(), "at least 1");
            require(s.slowKernelFactor() >= 1, "slowKernelFactor", s.slowKernelFactor(), "at least 1");
            require(s.slowRankFactor() >= 1, "slowRankFactor", s.slowRankFactor(), "at least 1");
            require(s.slowRank() < s.tpSize(), "slowRank", s.slowRank(), "-1 (none) or a TP rank below tpSize");
            config.tpSize(s.tpSize()).maxRunningRequests(s.maxRunningRequests());
            if (!s.slowKernel().isEmpty()) {
                config.slowKernel(s.slowKernel(), s.slowKernelFactor());
            }
            if (s.slowRank() >= 0) {
                config.slowRank(s.slowRank(), s.slowRankFactor());
            }
        }
        try {
            return EngineSimulator.start(config.build());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded engine simulator: " + e.getMessage(), e);
        }
    }

    private static void require(boolean ok, String attribute, Object value, String allowed) {
        if (!ok) {
            throw new ExtensionConfigurationException(
                    "@SimulatedEngine(" + attribute + " = " + value + ") is invalid: " + allowed);
        }
    }

    public SglangClient client() {
        return client;
    }

    public ServerInfo serverInfo() {
        return serverInfo;
    }

    public String model() {
        return model;
    }

    public URI baseUri() {
        return client.baseUri();
    }

    /** @return whether this handle started the embedded simulator (reports then say {@code engine: simulator}) */
    public boolean embedded() {
        return simulator != null;
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            if (simulator != null) {
                simulator.close();
            }
        }
    }
}
