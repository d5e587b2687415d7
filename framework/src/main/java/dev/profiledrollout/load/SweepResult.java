package dev.profiledrollout.load;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apiguardian.api.API;

/**
 * The stages of a staged load, in the order they ran, and those of its sweep that were not run. Immutable.
 *
 * @param stages one result per stage that ran
 * @param notRun the sweep's stages that were not run, in sweep order: the sweep was stopped early
 *               ({@link StageRunner#run(LoadSweep, java.util.function.BooleanSupplier)}, e.g. a recipe's sweep once
 *               every profile window's traces were in); empty when every stage ran. Nothing is measured of them:
 *               {@link #stage(int)} names them as not run instead of answering for them
 * @param whyNotRun why the stages of {@code notRun} were not run, for messages; empty when every stage ran
 */
@API(status = EXPERIMENTAL, since = "0.2")
public record SweepResult(List<StageResult> stages, List<LoadStage> notRun, String whyNotRun) {

    /** The knee rule: a stage's throughput gain below this fraction of its load gain, while latency rose. */
    public static final double KNEE_GAIN = 0.5;

    public SweepResult {
        stages = List.copyOf(stages);
        notRun = List.copyOf(notRun);
        whyNotRun = java.util.Objects.requireNonNull(whyNotRun, "whyNotRun");
    }

    /** @param stages one result per stage; every stage of the sweep ran */
    public SweepResult(List<StageResult> stages) {
        this(stages, List.of(), "");
    }

    /**
     * @param concurrency a closed-loop stage's lanes
     * @return the first closed-loop stage at that concurrency
     * @throws NoSuchElementException naming the stages that ran, when there is none
     */
    public StageResult stage(int concurrency) {
        return stages.stream().filter(s -> s.stage().isClosedLoop() && s.stage().concurrency() == concurrency)
                .findFirst().orElseThrow(() -> new NoSuchElementException("no closed-loop stage at concurrency "
                        + concurrency + " ran; the stages were " + labels() + notRunNote()));
    }

    /**
     * @param rate an open-loop stage's requested rate in requests/s (matched within 1e-9 relative)
     * @return the first open-loop stage at that rate
     * @throws NoSuchElementException naming the stages that ran, when there is none
     */
    public StageResult stageAtRate(double rate) {
        return stages.stream().filter(s -> !s.stage().isClosedLoop()
                        && Math.abs(s.stage().requestRate() - rate) <= 1e-9 * Math.max(1, rate))
                .findFirst().orElseThrow(() -> new NoSuchElementException("no open-loop stage at rate " + rate
                        + " req/s ran; the stages were " + labels() + notRunNote()));
    }

    /**
     * @return {@code "; not run: [concurrency 8, concurrency 16] (why)"} when stages were not run, else {@code ""}
     */
    public String notRunNote() {
        return notRun.isEmpty() ? "" : "; not run: " + notRun.stream().map(LoadStage::label)
                .collect(Collectors.joining(", ", "[", "]")) + (whyNotRun.isEmpty() ? "" : " (" + whyNotRun + ")");
    }

    /** @return the stage labels in run order, for messages */
    public String labels() {
        return stages.stream().map(StageResult::label).collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * The saturation knee: the first stage, in load order, whose relative throughput gain over the previous stage is
     * below {@value #KNEE_GAIN} of its relative load gain while its median E2E latency rose; i.e. more load bought
     * mostly queueing. The same "throughput stops rising while latency climbs" reading inference-perf and GuideLLM's
     * sweep reports leave to the reader, made a rule.
     *
     * @return the stage before which the engine saturated; empty when throughput kept pace with the load, or with
     *         fewer than two driven stages
     */
    public Optional<StageResult> knee() {
        List<StageResult> driven = stages.stream().filter(s -> s.fidelity().driven() && s.latency().completed() > 0)
                .sorted(java.util.Comparator.comparingDouble(s -> s.stage().level())).toList();
        for (int i = 1; i < driven.size(); i++) {
            StageResult a = driven.get(i - 1);
            StageResult b = driven.get(i);
            double loadGain = b.stage().level() / a.stage().level() - 1;
            if (loadGain <= 0 || a.throughput() <= 0) {
                continue;
            }
            double throughputGain = b.throughput() / a.throughput() - 1;
            Duration e2eA = a.latency().e2e().percentile(50);
            Duration e2eB = b.latency().e2e().percentile(50);
            if (throughputGain < KNEE_GAIN * loadGain && e2eB.compareTo(e2eA) > 0) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /** @return a fixed-width table: one row per stage with load, rates, throughput, TTFT/TPOT p50/p99, lag, fidelity */
    public String toTable() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "%-18s %9s %9s %9s %10s %10s %10s %10s %9s %6s  %s%n", "stage", "req rate", "sent/s", "done/s",
                "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "lag p99", "failed", "load"));
        for (StageResult s : stages) {
            b.append(String.format(Locale.ROOT, "%-18s %9s %9.2f %9.2f %10s %10s %10s %10s %9s %6d  %s%n",
                    s.label(), s.stage().isClosedLoop() ? "-" : String.format(Locale.ROOT, "%.2f",
                            s.stage().requestRate()), s.achievedRate(), s.throughput(),
                    ms(s.latency().ttft().count() == 0 ? null : s.latency().ttft().percentile(50)),
                    ms(s.latency().ttft().count() == 0 ? null : s.latency().ttft().percentile(99)),
                    ms(s.latency().tpot().count() == 0 ? null : s.latency().tpot().percentile(50)),
                    ms(s.latency().tpot().count() == 0 ? null : s.latency().tpot().percentile(99)),
                    ms(s.lagP99()), s.failures(), s.fidelity().limit() == LoadFidelity.Limit.NONE ? "driven"
                            : s.fidelity().limit().name().toLowerCase(Locale.ROOT) + "-limited"));
        }
        return b.toString();
    }

    private static String ms(Duration d) {
        return d == null ? "-" : String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
    }
}
