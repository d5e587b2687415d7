package dev.profiledrollout.cli;

import dev.profiledrollout.backend.BackendSupport;
import dev.profiledrollout.engine.EngineClient;
import dev.profiledrollout.engine.FanOut;
import dev.profiledrollout.engine.ProfileRequest;
import dev.profiledrollout.engine.Worker;
import dev.profiledrollout.engine.WorkerOutcome;
import dev.profiledrollout.load.ArrivalProcess;
import dev.profiledrollout.load.LoadFidelity;
import dev.profiledrollout.load.LoadSpec;
import dev.profiledrollout.load.LoadStage;
import dev.profiledrollout.load.LoadSweep;
import dev.profiledrollout.load.StageResult;
import dev.profiledrollout.load.StageRunner;
import dev.profiledrollout.load.SweepResult;
import dev.profiledrollout.metrics.Slo;
import dev.profiledrollout.recipe.SrtctlRecipe;
import dev.profiledrollout.recipe.SweepCutoff;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.files.TraceFiles;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * A recipe whose benchmark is a sweep ({@link SrtctlRecipe#isSweep()}), run as srtctl runs it: every window's workers
 * are armed once, together, with the window's {@code start_step} and {@code num_steps = stop_step − start_step}
 * (srt-slurm {@code src/srtctl/benchmarks/scripts/lib/profiling.sh}); then the sweep's stages run back to back
 * through the router, one closed loop (or {@code req_rate} with the concurrency as cap) per concurrency, so the
 * captured steps fall wherever the sweep puts them.
 *
 * <p>After each stage the windows' trace directories are looked at ({@link SweepCutoff}, the rule
 * {@code @RolloutRecipe} shares): once every worker of every window has written its trace (SGLang stops by itself
 * after {@code num_steps}), the rest of the sweep profiles nothing and is skipped, unless {@code --full-sweep}. When the directories are not on this machine (remote servers, or a backend whose
 * server fixes the trace directory) the whole sweep runs. Each window's steps are then placed in the stages by their
 * timestamps ({@code baseTimeNanoseconds} + the step span's start, against each stage's wall-clock start and end).
 * A window fails when its workers wrote no trace, or fewer steps than {@code num_steps}: {@code stop_step} then lies
 * beyond the steps the sweep produced.
 */
final class RecipeSweepRun {

    /** A stage as it ran: its label and wall-clock interval, epoch ns. */
    record StageTime(String label, long startNs, long endNs) {
    }

    private final SrtctlRecipe recipe;
    private final URI routerUrl;
    private final String outputDir;
    private final RecipeLoadCaps caps;
    private final boolean fullSweep;
    private final int requests;
    private final Function<URI, EngineClient> clients;
    private final Function<SrtctlRecipe.Window, IntFunction<ProfileRequest>> requestsOf;
    private final PrintWriter out;

    RecipeSweepRun(SrtctlRecipe recipe, URI routerUrl, String outputDir, RecipeLoadCaps caps, boolean fullSweep,
            int requests, Function<URI, EngineClient> clients,
            Function<SrtctlRecipe.Window, IntFunction<ProfileRequest>> requestsOf, PrintWriter out) {
        this.recipe = recipe;
        this.routerUrl = routerUrl;
        this.outputDir = outputDir;
        this.caps = caps;
        this.fullSweep = fullSweep;
        this.requests = requests;
        this.clients = clients;
        this.requestsOf = requestsOf;
        this.out = out;
    }

    /** One window armed on its workers. */
    private record Armed(SrtctlRecipe.Window window, List<Worker> workers, List<String> labels, List<Path> dirs,
                         List<Set<String>> before, FanOut fanOut) {
    }

    boolean run(List<Worker> all, Map<SrtctlRecipe.Window, List<Worker>> workersOf, String model)
            throws InterruptedException {
        BackendSupport support = BackendSupport.of(recipe.backend());
        List<Integer> stages = caps.sweep(recipe);
        SrtctlRecipe.Window first = recipe.windows().get(0);
        double rate = first.requestRate();
        out.println("sweep: " + stages.size() + " stage(s) at concurrency " + stages
                + (stages.size() < recipe.sweep().size() || !stages.equals(recipe.sweep())
                        ? " (recipe: " + recipe.sweep() + ", capped)" : "")
                + (Double.isInfinite(rate) ? "" : ", " + rate + " req/s each") + ", " + requests
                + " requests per stage; every window armed once"
                + (fullSweep ? "; --full-sweep: every stage runs" : "; the sweep stops once every window's traces"
                        + " are in"));
        List<Armed> armed = new ArrayList<>();
        boolean ok = true;
        List<StageTime> times = new ArrayList<>();
        List<StageResult> results = new ArrayList<>();
        String loadError = null;
        try {
            for (SrtctlRecipe.Window w : recipe.windows()) {
                List<Worker> ofPhase = workersOf.get(w);
                List<Path> dirs = new ArrayList<>();
                List<Set<String>> before = new ArrayList<>();
                List<String> labels = new ArrayList<>();
                for (int i = 0; i < ofPhase.size(); i++) {
                    labels.add(ProfileCommand.workerLabel(all.indexOf(ofPhase.get(i))));
                    Path dir = localDir(ProfileCommand.workerOutputDir(outputDir + "/" + w.mode(),
                            all.indexOf(ofPhase.get(i)), ofPhase.size(), support));
                    dirs.add(support.tracesWhereRequested() ? dir : null);
                    before.add(dir == null || !support.tracesWhereRequested() ? Set.of() : TraceFiles.snapshot(dir));
                }
                FanOut fanOut = new FanOut(ofPhase, worker -> clients.apply(worker.url()));
                armed.add(new Armed(w, ofPhase, labels, dirs, before, fanOut));
                List<WorkerOutcome> started = fanOut.start(requestsOf.apply(w));
                out.println(w.mode() + ": armed steps " + w.startStep() + ".." + w.stopStep() + " (num_steps "
                        + w.numSteps() + ") on " + started.stream().filter(o -> o.state()
                        == WorkerOutcome.State.STARTED).count() + " of " + ofPhase.size() + " worker(s)");
            }
            SweepCutoff cutoff = new SweepCutoff();
            for (Armed a : armed) {
                for (int i = 0; i < a.dirs().size(); i++) {
                    cutoff.watch(a.dirs().get(i), a.before().get(i));
                }
            }
            if (!fullSweep && !cutoff.observable()) {
                out.println("  the trace directories are not on this machine: the whole sweep runs");
            }
            LoadSpec base = new LoadSpec(stages.get(0), requests, caps.isl(first.inputTokens()),
                    caps.osl(first.outputTokens()), 0.0, 0, 0L, ArrivalProcess.closedLoop(), 0, null,
                    dev.profiledrollout.load.Endpoint.COMPLETIONS);
            List<LoadStage> sweep = new ArrayList<>();
            for (int c : stages) {
                sweep.add(Double.isInfinite(rate) ? LoadStage.closedLoop(base, c)
                        : LoadStage.atRate(base, ArrivalProcess.poisson(rate), c));
            }
            try (StageRunner runner = new StageRunner(CliHttp.loadTarget(routerUrl), model, base, Slo.none(),
                    Duration.ofMinutes(30), LoadFidelity.DEFAULT_LAG_BOUND)) {
                // epoch ns = nanoTime + offset, to place the steps (epoch timestamps) in the stages
                long offset = epochNs() - System.nanoTime();
                SweepResult ran = runner.run(new LoadSweep(sweep), fullSweep ? () -> false : cutoff,
                        SweepCutoff.WHY);
                for (StageResult r : ran.stages()) {
                    long start = r.latency().records().stream().mapToLong(x -> x.startNanos()).min().orElse(0);
                    long end = r.latency().records().stream().mapToLong(x -> Math.max(x.endNanos(), x.startNanos()))
                            .max().orElse(start);
                    times.add(new StageTime(r.label(), start + offset, end + offset));
                    results.add(r);
                    out.println("  stage " + r.label() + ": " + r.latency().completed() + " completed, "
                            + r.failures() + " failed");
                }
                if (!ran.notRun().isEmpty()) {
                    out.println("  " + SweepCutoff.skipped(ran.notRun().size(), "--full-sweep"));
                }
                out.flush();
            } catch (TimeoutException e) {
                loadError = "a stage did not finish in time: " + e.getMessage();
                ok = false;
            }
        } finally {
            for (Armed a : armed) {
                List<WorkerOutcome> outcomes = a.fanOut().stop();
                a.fanOut().close();
                out.println(a.window().mode() + ":");
                for (int i = 0; i < outcomes.size(); i++) {
                    out.println("  " + a.labels().get(i) + " "
                            + outcomes.get(i).describe() + (a.dirs().get(i) != null ? " → " + a.dirs().get(i) : ""));
                }
                boolean profiled = outcomes.stream().anyMatch(o -> o.state() == WorkerOutcome.State.PROFILED);
                ok &= profiled && outcomes.stream().noneMatch(WorkerOutcome::failed);
                ok &= placeSteps(a, times);
            }
        }
        if (loadError != null) {
            out.println("  load: " + loadError);
        }
        out.flush();
        return ok;
    }

    /**
     * Prints which stages each worker's captured steps fell in; false when a worker captured fewer steps than the
     * window asks for (or nothing), which fails the window.
     */
    private boolean placeSteps(Armed a, List<StageTime> times) {
        SrtctlRecipe.Window w = a.window();
        boolean ok = true;
        for (int i = 0; i < a.dirs().size(); i++) {
            Path dir = a.dirs().get(i);
            String label = a.labels().get(i);
            if (dir == null) {
                out.println("  " + label + ": traces are on the server, not placed in the stages");
                continue;
            }
            List<Path> traces = TraceFiles.rankTraces(dir, false, a.before().get(i));
            if (traces.isEmpty()) {
                out.println("  " + label + ": FAILED: no trace in " + dir + ": start_step " + w.startStep()
                        + " lies beyond the steps the sweep produced (no verdict without data); lower start_step,"
                        + " or send more requests per stage (--requests) or run every stage (--full-sweep)");
                ok = false;
                continue;
            }
            try {
                TraceSummary summary = KinetoTraceReader.read(traces.get(0));
                List<StepStats> steps = summary.details().steps();
                if (steps.size() < w.numSteps()) {
                    out.println("  " + label + ": FAILED: captured " + steps.size() + " of num_steps " + w.numSteps()
                            + ": stop_step " + w.stopStep() + " lies beyond the steps the sweep produced (no"
                            + " verdict without data); lower stop_step, or send more requests per stage"
                            + " (--requests) or run every stage (--full-sweep)");
                    ok = false;
                }
                if (summary.details().baseTimeNs().isEmpty()) {
                    out.println("  " + label + ": " + steps.size() + " step(s); the trace has no"
                            + " baseTimeNanoseconds, so its steps cannot be placed in the stages");
                    continue;
                }
                long base = summary.details().baseTimeNs().getAsLong();
                Map<String, Integer> perStage = new LinkedHashMap<>();
                for (StepStats s : steps) {
                    perStage.merge(stageAt(times, base + s.startNs()), 1, Integer::sum);
                }
                out.println("  " + label + ": " + steps.size() + " captured step(s) fell in " + perStage.entrySet()
                        .stream().map(e -> "stage " + e.getKey() + " (" + e.getValue() + ")").toList());
            } catch (IOException e) {
                out.println("  " + label + ": FAILED: " + traces.get(0) + " cannot be read: " + e.getMessage());
                ok = false;
            }
        }
        return ok;
    }

    /**
     * @param dir    a worker's trace directory on this machine
     * @param before the files there before the window was armed
     * @param load   what produced the steps, for the message ("the sweep", "the window's load")
     * @return why the worker's capture holds fewer steps than the window asks for (no trace, or a short one), or null
     *         when it is complete or cannot be read here (no such directory)
     */
    static String shortCapture(Path dir, Set<String> before, SrtctlRecipe.Window w, String load) {
        if (!dir.isAbsolute() || !Files.isDirectory(dir.getParent() == null ? dir : dir.getParent())) {
            return null;
        }
        List<Path> traces = TraceFiles.rankTraces(dir, false, before);
        if (traces.isEmpty()) {
            return "no trace in " + dir + ": start_step " + w.startStep() + " lies beyond the steps " + load
                    + " produced (no verdict without data); lower start_step or send more requests (--requests)";
        }
        try {
            int steps = KinetoTraceReader.read(traces.get(0)).details().steps().size();
            return steps >= w.numSteps() ? null : "captured " + steps + " of num_steps " + w.numSteps() + ": stop_step "
                    + w.stopStep() + " lies beyond the steps " + load + " produced (no verdict without data); lower"
                    + " stop_step or send more requests (--requests)";
        } catch (IOException e) {
            return traces.get(0) + " cannot be read: " + e.getMessage();
        }
    }

    /** @return the label of the stage running at {@code epochNs}, or the last one started before it */
    static String stageAt(List<StageTime> times, long epochNs) {
        String label = "before the sweep";
        for (StageTime t : times) {
            if (epochNs >= t.startNs()) {
                label = t.label();
            }
        }
        return label;
    }

    private static long epochNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * @return the server path as a path here when it is an absolute path (the servers may share this file system, as
     *         the simulator and a single-host deployment do), else null; a remote server's traces then simply never
     *         appear here, and the whole sweep runs
     */
    private static Path localDir(String serverPath) {
        try {
            Path p = Path.of(serverPath);
            return p.isAbsolute() ? p : null;
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
