package dev.profiledrollout.assertions;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.capacity.SloTarget;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.verdict.Verdict;
import dev.profiledrollout.verdict.Verdicts;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * Whole-sweep assertions over the stages of a staged load; per-stage ones go through the stage's report,
 * {@code assertThat(sweep.stage(64).latency()).ttft().percentile(99).isLessThan(…)}.
 */
@API(status = EXPERIMENTAL, since = "0.2")
public final class SweepAssert extends AbstractAssert<SweepAssert, SweepResult> {

    public SweepAssert(SweepResult actual) {
        super(actual, SweepAssert.class);
    }

    /**
     * Completed-request throughput never falls from one stage to the next in load order by more than
     * {@code tolerance} (relative, e.g. 0.05), a THROUGHPUT verdict. Fails without at least two stages.
     */
    public SweepAssert hasMonotoneThroughput(double tolerance) {
        isNotNull();
        List<StageResult> byLoad = new ArrayList<>(actual.stages());
        byLoad.sort(Comparator.comparingDouble(s -> s.stage().level()));
        List<String> drops = new ArrayList<>();
        for (int i = 1; i < byLoad.size(); i++) {
            StageResult a = byLoad.get(i - 1);
            StageResult b = byLoad.get(i);
            if (b.throughput() < (1 - tolerance) * a.throughput()) {
                drops.add(String.format(Locale.ROOT, "%s %.2f req/s after %s %.2f req/s", b.label(), b.throughput(),
                        a.label(), a.throughput()));
            }
        }
        boolean enough = byLoad.size() >= 2;
        String detail = !enough ? "fewer than 2 stages: nothing to compare" : drops.isEmpty()
                ? "throughput rose or held over " + actual.labels() : "throughput fell: " + String.join("; ", drops);
        Verdict v = Checks.count(Verdict.Kind.THROUGHPUT, "sweep", "throughput drops between stages", "≤",
                enough ? drops.size() : 1, 0, detail, enough && drops.isEmpty());
        Verdicts.check(v, () -> failure("%s", "[sweep] " + detail));
        return myself;
    }

    /**
     * Every closed-loop stage up to {@code concurrency} meets {@code slo} (e.g. {@code "ttft.p99<1s"}) as a point
     * estimate, LATENCY verdicts, one per stage. Fails when no stage is at or below that concurrency.
     */
    public SweepAssert meetsUpToConcurrency(String slo, int concurrency) {
        return meetsUpTo(slo, concurrency, true);
    }

    /** As {@link #meetsUpToConcurrency}, for open-loop stages up to {@code rate} requests/s. */
    public SweepAssert meetsUpToRate(String slo, double rate) {
        return meetsUpTo(slo, rate, false);
    }

    private SweepAssert meetsUpTo(String text, double level, boolean closed) {
        isNotNull();
        SloTarget slo = SloTarget.parse(text);
        List<StageResult> selected = actual.stages().stream()
                .filter(s -> s.stage().isClosedLoop() == closed && s.stage().level() <= level).toList();
        if (selected.isEmpty()) {
            String why = "no " + (closed ? "closed-loop stage at concurrency" : "open-loop stage at rate") + " ≤ "
                    + level + " among " + actual.labels();
            Verdicts.check(Checks.count(Verdict.Kind.LATENCY, "sweep", slo + " stages", "≥", 0, 1, why, false),
                    () -> failure("%s", "[sweep] " + why));
            return myself;
        }
        for (StageResult s : selected) {
            var d = slo.distribution(s.latency());
            boolean has = d.count() > 0;
            double ms = has ? d.percentile(slo.percentile()).toNanos() / 1e6 : Double.NaN;
            double budget = slo.budget().toNanos() / 1e6;
            String measure = slo.metric() + " p" + slo.percentile();
            Verdict v = Verdict.of(Verdict.Kind.LATENCY, measure, "<", ms, budget, "ms",
                    has ? String.format(Locale.ROOT, "%.1f ms", ms) : "no data",
                    String.format(Locale.ROOT, "%.1f ms", budget), d.count() + " samples", has && ms < budget)
                    .withScope(s.label());
            Verdicts.check(v, () -> failure("%s", "[" + s.label() + "] " + measure + " was "
                    + (has ? String.format(Locale.ROOT, "%.1f ms", ms) : "not measured (no request finished)")
                    + ", budget < " + String.format(Locale.ROOT, "%.1f ms", budget)));
        }
        return myself;
    }
}
