package dev.profiledrollout.cli;

import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.Endpoint;
import dev.profiledrollout.load.LoadGenerator;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.LoadSweep;
import dev.profiledrollout.load.LoadTarget;
import dev.profiledrollout.load.RandomTokenWorkload;
import dev.profiledrollout.load.RequestParameters;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.StageRunner;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.cli.bench.BenchmarkSummary;
import dev.profiledrollout.metrics.RequestRecord;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.metrics.TimeSeries;
import dev.profiledrollout.report.StageReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * {@code bench --sweep concurrency=1,4,16} or {@code --sweep rate=10,20,40}: the bench's load as stages run back to back
 * on one load generator ({@link StageRunner}), each printed as a vLLM-style result table and, with
 * {@code --save-result}, written as one vLLM-style result JSON per stage plus {@code sweep-summary.json} (the
 * {@code stages.json} document of docs/METRICS.md §11).
 */
final class BenchSweep {

    /** A parsed {@code --sweep}: closed-loop lanes or open-loop rates. */
    record Plan(boolean closed, List<Double> levels) {

        /** @throws IllegalArgumentException naming the accepted form */
        static Plan parse(String text) {
            int eq = text.indexOf('=');
            String kind = eq < 0 ? "" : text.substring(0, eq).strip();
            if (!(kind.equals("concurrency") || kind.equals("rate")) || eq == text.length() - 1) {
                throw new IllegalArgumentException("--sweep takes concurrency=N,N,… or rate=R,R,… (requests/s), was '"
                        + text + "'");
            }
            List<Double> levels = new ArrayList<>();
            for (String v : text.substring(eq + 1).split(",")) {
                double d;
                try {
                    d = Double.parseDouble(v.strip());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--sweep: '" + v.strip() + "' is not a number (" + text + ")");
                }
                boolean closed = kind.equals("concurrency");
                if (!(d > 0) || Double.isInfinite(d) || closed && d != Math.rint(d)) {
                    throw new IllegalArgumentException("--sweep: each " + kind + " must be "
                            + (closed ? "an integer ≥ 1" : "a finite rate above 0") + ", was " + v.strip());
                }
                levels.add(d);
            }
            return new Plan(kind.equals("concurrency"), levels);
        }
    }

    private BenchSweep() {
    }

    /**
     * @param base        request shape, per-stage request count, seed and warm-up (before the first stage)
     * @param burstiness  open-loop stages' gamma shape
     * @param maxInFlight open-loop stages' cap, 0 for none
     * @param resultDir   where to write, or null not to write
     * @return 0
     */
    static int run(PrintWriter out, Plan plan, LoadTarget target, String model, String backend, Endpoint endpoint,
                   RequestParameters parameters, LoadSpec base, double burstiness, int maxInFlight, Slo slo,
                   List<String> metrics, List<Double> percentiles, Duration lagBound, Path resultDir)
            throws InterruptedException, TimeoutException, IOException {
        LoadSweep.Builder b = LoadSweep.builder(base);
        for (double level : plan.levels()) {
            b.stage(plan.closed() ? LoadStage.closedLoop(base, (int) level)
                    : LoadStage.atRate(base, ArrivalProcess.gamma(level, burstiness), maxInFlight));
        }
        List<LoadStage> stages = new ArrayList<>(b.build().stages());
        for (int i = 1; i < stages.size(); i++) {
            stages.set(i, stages.get(i).withWarmup(0)); // the warm-up runs once, before the first stage
        }
        LoadGenerator generator = new LoadGenerator(target, model, base,
                new RandomTokenWorkload(base, LoadGenerator.DEFAULT_VOCAB_SIZE), endpoint, Duration.ofMinutes(5),
                parameters);
        SweepResult sweep;
        try (StageRunner runner = new StageRunner(generator, base, slo, Duration.ofHours(1), lagBound)) {
            out.println("Sweeping " + stages.size() + " stages of " + base.requests() + " requests: "
                    + stages.stream().map(LoadStage::label).toList());
            out.flush();
            sweep = runner.run(new LoadSweep(stages));
        }
        if (resultDir != null) {
            Files.createDirectories(resultDir);
        }
        for (StageResult s : sweep.stages()) {
            List<RequestRecord> records = s.latency().records();
            long first = records.stream().mapToLong(RequestRecord::startNanos).min().orElse(0);
            BenchmarkSummary summary = new BenchmarkSummary(backend, model, s.stage().spec().requests(),
                    s.stage().isClosedLoop() ? Double.POSITIVE_INFINITY : s.stage().requestRate(),
                    s.stage().isClosedLoop() ? 1.0 : burstiness, s.stage().spec().maxInFlight(), s.latency(),
                    s.schedule(), TimeSeries.of(records, first), slo).withPercentiles(metrics, percentiles);
            out.println("Stage " + (s.index() + 1) + ": " + s.label() + " (" + s.fidelity().message() + ")");
            out.print(summary.toTable());
            if (resultDir != null) {
                String key = s.stage().isClosedLoop() ? "concurrency" + s.stage().concurrency()
                        : String.format(Locale.ROOT, "%sqps", trim(s.stage().requestRate()));
                Path json = resultDir.resolve(String.format(Locale.ROOT, "%s-sweep%02d-%s-%s.json", backend,
                        s.index() + 1, key, model.replaceAll("[^A-Za-z0-9._-]+", "_")));
                Files.writeString(json, summary.toJson().toPrettyString());
                out.println("Saved " + json);
            }
        }
        sweep.knee().ifPresent(k -> out.println("Saturation knee: " + k.label()));
        if (resultDir != null) {
            Path summary = resultDir.resolve("sweep-summary.json");
            Files.writeString(summary, StageReport.toJson(sweep, null));
            out.println("Saved " + summary);
        }
        out.flush();
        return 0;
    }

    private static String trim(double v) {
        return String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }
}
