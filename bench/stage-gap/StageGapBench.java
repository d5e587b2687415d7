import dev.profiledrollout.capacity.SloTarget;
import dev.profiledrollout.load.LoadFidelity;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadSweep;
import dev.profiledrollout.load.LoadTarget;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.StageRunner;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.simulator.EngineSimulator;
import dev.profiledrollout.simulator.SimulatorConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hand-over gap of closed-loop stages (issue 26 §4: the first request of a stage sent within 1 ms of the previous
 * stage's end), against the embedded engine simulator on loopback.
 * Usage: java -cp cli/target/profiled-rollout.jar bench/stage-gap/StageGapBench.java [sweeps] [stagesPerSweep]
 *
 * <p>Each sweep alternates closed loops at concurrency 1 and 4 (8 requests of 32 → 8 tokens each) on one
 * {@link StageRunner}; the gap of a stage is {@link StageResult#gapBefore()}: from the previous stage's last response
 * read to this stage's first request's start (its record's {@code startNanos}). Each round runs the sweep chained
 * ({@code run(LoadSweep)}: the next stage started by the event-loop thread that read the last response, on the
 * previous stage's connections) and unchained ({@code run(LoadStage)} per stage, as a capacity search runs its stages:
 * the sweep's thread wakes, measures the stage, then starts the next on new connections), interleaved. Two more
 * chained kinds in the same rounds: every stage with a warm-up of its own (2 requests; the gap is to the warm-up's
 * first send, {@code StageResult.gapBefore()}), and stages chosen from the previous stage's result as a capacity search
 * chooses them ({@code run(LoadStage, then)}: the loop thread measures the stage, judges an SLO on it, picks the next
 * level and starts it). The first round warms the JIT and is not counted. Also in the same JVM: a bare thread hand-off (a latch counted down on one thread, the time until the
 * thread waiting on it runs), the least a design that wakes another thread at a stage's end pays.
 */
public final class StageGapBench {

    public static void main(String[] args) throws Exception {
        int sweeps = args.length > 0 ? Integer.parseInt(args[0]) : 6;
        int stagesPerSweep = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        LoadSpec base = LoadSpec.closedLoop(1, 8, 32, 8, 0.0, 0, 7L);
        int[] levels = new int[stagesPerSweep];
        for (int i = 0; i < levels.length; i++) {
            levels[i] = i % 2 == 0 ? 1 : 4;
        }
        List<Long> chained = new ArrayList<>();
        List<Long> unchained = new ArrayList<>();
        List<Long> warmups = new ArrayList<>();
        List<Long> chosen = new ArrayList<>();
        SloTarget slo = SloTarget.parse("ttft.p90<1s");
        List<SloTarget.Outcome> verdicts = new java.util.concurrent.CopyOnWriteArrayList<>();
        LoadSweep sweepOf = LoadSweep.concurrencies(base, levels);
        try (EngineSimulator sim = EngineSimulator.start(SimulatorConfig.builder().maxRunningRequests(16).build())) {
            for (int sweep = 0; sweep <= sweeps; sweep++) {
                // interleaved, so that both see the same machine: run(LoadSweep) chains the stages; run(LoadStage)
                // one by one is the sweep thread starting each stage after the previous one ended, on new connections
                for (String kind : new String[] {"warm-up", "chosen"}) {
                    try (StageRunner runner = new StageRunner(LoadTarget.of(sim.baseUri()), "m", base, Slo.none(),
                            Duration.ofMinutes(2), LoadFidelity.DEFAULT_LAG_BOUND)) {
                        List<StageResult> stages;
                        if (kind.equals("warm-up")) {
                            LoadSweep.Builder b = LoadSweep.builder(base);
                            for (int lanes : levels) {
                                b.stage(LoadStage.closedLoop(base, lanes).withWarmup(2));
                            }
                            stages = runner.run(b.build()).stages();
                        } else {
                            int[] left = {stagesPerSweep - 1};
                            stages = runner.run(LoadStage.closedLoop(base, 1), r -> {
                                // a capacity search's work on the loop thread: the stage measured (before this), the
                                // SLO judged on its interval; the level then alternates 1/4 as in the other kinds
                                // (8 requests cannot show a p90 met), so that the gaps compare
                                verdicts.add(slo.check(r.latency()).outcome());
                                int lanes = r.stage().concurrency() == 1 ? 4 : 1;
                                return left[0]-- > 0 ? Optional.of(LoadStage.closedLoop(base, lanes))
                                        : Optional.empty();
                            }, r -> dev.profiledrollout.metrics.QuantileInterval.ranks(8, 90, 0.95)).stages();
                            // (the search computes the next stage's interval ranks ahead on its own thread, as here)
                        }
                        if (sweep == 0) {
                            continue;
                        }
                        for (StageResult st : stages.subList(1, stages.size())) {
                            (kind.equals("warm-up") ? warmups : chosen).add(st.gapBefore().toNanos());
                        }
                    }
                }
                for (boolean chain : new boolean[] {true, false}) {
                    try (StageRunner runner = new StageRunner(LoadTarget.of(sim.baseUri()), "m", base, Slo.none(),
                            Duration.ofMinutes(2), LoadFidelity.DEFAULT_LAG_BOUND)) {
                        List<StageResult> stages = new ArrayList<>();
                        if (chain) {
                            stages.addAll(runner.run(sweepOf).stages());
                        } else {
                            for (var stage : sweepOf.stages()) {
                                stages.add(runner.run(stage));
                            }
                        }
                        if (sweep == 0) {
                            continue; // JIT warm-up
                        }
                        for (StageResult s : stages.subList(1, stages.size())) {
                            (chain ? chained : unchained).add(s.gapBefore().toNanos());
                        }
                    }
                }
            }
        }
        long[] handOff = handOffs(2_000);
        System.out.printf(Locale.ROOT, "sweeps %d of %d stages each way (first not counted), closed loops 1/4 lanes%n",
                sweeps, stagesPerSweep);
        long[] c = print("chained (run(LoadSweep))", chained);
        long[] u = print("unchained (run(LoadStage) each)", unchained);
        print("chained, each with a warm-up", warmups);
        print("chosen from the result (search)", chosen);
        System.out.printf(Locale.ROOT, "%-32s p50 %.3f ms, p90 %.3f ms%n", "bare thread hand-off",
                pct(handOff, 50) / 1e6, pct(handOff, 90) / 1e6);
        System.out.printf(Locale.ROOT, "ratio unchained / chained gap    p50 %.1fx, p90 %.1fx%n",
                (double) pct(u, 50) / Math.max(1, pct(c, 50)), (double) pct(u, 90) / Math.max(1, pct(c, 90)));
        System.out.printf(Locale.ROOT, "ratio chained gap / hand-off     p50 %.1fx%n",
                (double) pct(c, 50) / Math.max(1, pct(handOff, 50)));
    }

    private static long[] print(String name, List<Long> gaps) {
        long[] g = gaps.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(Locale.ROOT, "%-32s p50 %.3f ms, p90 %.3f ms, max %.3f ms, within 1 ms %.1f %% of %d%n",
                name, pct(g, 50) / 1e6, pct(g, 90) / 1e6, g[g.length - 1] / 1e6,
                100.0 * Arrays.stream(g).filter(x -> x <= 1_000_000).count() / g.length, g.length);
        return g;
    }

    /** Time from a latch's countDown on one thread to the return of await on another, n times. */
    private static long[] handOffs(int n) throws InterruptedException {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            CountDownLatch latch = new CountDownLatch(1);
            AtomicLong sent = new AtomicLong();
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(0, 200_000);
                } catch (InterruptedException e) {
                    return;
                }
                sent.set(System.nanoTime());
                latch.countDown();
            });
            t.start();
            latch.await();
            out[i] = System.nanoTime() - sent.get();
            t.join();
        }
        Arrays.sort(out);
        return out;
    }

    private static long pct(long[] sorted, double p) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)];
    }
}
