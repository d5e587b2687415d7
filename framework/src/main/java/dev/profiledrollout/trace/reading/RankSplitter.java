package dev.profiledrollout.trace.reading;

import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.internal.RawEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Routes the events of an SGLang merged trace to one {@link KinetoAccumulator} per rank label, the {@code [TP01-DP00]}
 * prefix SGLang's merger gives every pid ({@code docs/PROTOCOLS.md} §1.4); events without a label go to the {@code ""}
 * label. Top-level metadata goes to every rank. Confined to the reading thread.
 */
final class RankSplitter implements KinetoTraceReader.Sink {

    private final KernelCategories categories;
    private final Map<String, KinetoAccumulator> byLabel = new TreeMap<>();
    private final List<String> warnings = new ArrayList<>();
    private boolean sawEvents;
    private long gpuEvents;
    private OptionalInt rank = OptionalInt.empty();
    private long base = RawEvent.NONE;
    private final List<String> deviceNames = new ArrayList<>();

    RankSplitter(KernelCategories categories) {
        this.categories = categories;
    }

    /** Accumulators by label ({@code "[TP00]"}, …, or {@code ""}), in label order. */
    Map<String, KinetoAccumulator> byLabel() {
        return byLabel;
    }

    @Override
    public void event(RawEvent e) {
        String pid = e.pid == null ? "" : e.pid;
        String label = "";
        if (pid.startsWith("[")) {
            int close = pid.indexOf(']');
            if (close > 0) {
                label = pid.substring(0, close + 1);
            }
        }
        KinetoAccumulator acc = byLabel.get(label);
        if (acc == null) {
            acc = new KinetoAccumulator(categories);
            acc.eventsStarted();
            rank.ifPresent(acc::distributedRank);
            deviceNames.forEach(acc::deviceName);
            if (base != RawEvent.NONE) {
                acc.baseTimeNanoseconds(base);
            }
            byLabel.put(label, acc);
        }
        if (RawEvent.isGpu(e.cat)) {
            gpuEvents++;
        }
        acc.event(e);
    }

    @Override
    public void baseTimeNanoseconds(long ns) {
        base = ns;
        byLabel.values().forEach(a -> a.baseTimeNanoseconds(ns));
    }

    @Override
    public void deviceName(String name) {
        deviceNames.add(name);
        byLabel.values().forEach(a -> a.deviceName(name));
    }

    @Override
    public void distributedRank(int r) {
        // The merged file keeps the first file's metadata, so this is TP0's rank: not given to the others.
        rank = OptionalInt.empty();
    }

    @Override
    public void eventsStarted() {
        sawEvents = true;
    }

    @Override
    public boolean sawEvents() {
        return sawEvents;
    }

    @Override
    public long gpuEvents() {
        return gpuEvents;
    }

    @Override
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public void close() {
        byLabel.values().forEach(KinetoAccumulator::close);
    }
}
