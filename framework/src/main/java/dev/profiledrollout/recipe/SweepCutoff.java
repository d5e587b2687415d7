package dev.profiledrollout.recipe;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.trace.files.TraceFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apiguardian.api.API;

/**
 * When a recipe's benchmark sweep may stop: srtctl arms every worker's profiler once for a fixed step range
 * ({@code start_step}, {@code num_steps = stop_step − start_step}; NVIDIA/srt-slurm
 * {@code src/srtctl/benchmarks/scripts/lib/profiling.sh}), and SGLang stops by itself after {@code num_steps} and
 * writes its traces. Once every armed worker's trace directory holds a rank trace written since it was armed, every
 * window has closed, and the rest of the sweep profiles nothing. The one rule shared by {@code profile --recipe} and
 * {@code @RolloutRecipe}, handed to {@link dev.profiledrollout.load.StageRunner#run(dev.profiledrollout.load.LoadSweep,
 * BooleanSupplier, String)}.
 *
 * <p>A worker whose directory is not on this machine (a remote server, a backend whose server fixes the directory)
 * cannot be watched: then the cutoff is not {@link #observable()} and never answers true, so the whole sweep runs.
 * Not thread-safe while workers are added; {@link #getAsBoolean()} may then be called from any thread.
 */
@API(status = INTERNAL, since = "0.2")
public final class SweepCutoff implements BooleanSupplier {

    /** Why the stages after the cutoff were not run, for {@code SweepResult.notRunNote()}. */
    public static final String WHY = "every window's traces were in, so they would have profiled nothing";

    private final List<Path> directories = new ArrayList<>();
    private final List<Set<String>> before = new ArrayList<>();
    private boolean observable = true;

    /**
     * Adds an armed worker.
     *
     * @param directory where its traces appear on this machine, or null when they do not (the sweep then runs whole)
     * @param existing  the paths relative to {@code directory} that were there before it was armed
     *                  ({@link TraceFiles#snapshot}); empty for a fresh directory
     * @return this cutoff
     */
    public SweepCutoff watch(Path directory, Set<String> existing) {
        if (directory == null) {
            observable = false;
        } else {
            directories.add(directory);
            before.add(Set.copyOf(existing));
        }
        return this;
    }

    /** @return whether every armed worker's traces can be seen here (and at least one worker was added) */
    public boolean observable() {
        return observable && !directories.isEmpty();
    }

    /** @return whether every armed worker has written a rank trace since it was armed; false when not observable */
    @Override
    public boolean getAsBoolean() {
        if (!observable()) {
            return false;
        }
        for (int i = 0; i < directories.size(); i++) {
            if (TraceFiles.rankTraces(directories.get(i), false, before.get(i)).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param left     stages of the sweep not run
     * @param fullFlag how the user runs every stage ({@code "--full-sweep"}, {@code "@RolloutRecipe(fullSweep = true)"})
     * @return the line that says so, e.g. "every window's traces are in: the 8 remaining stage(s) would profile
     *         nothing and are skipped (--full-sweep runs them)"
     */
    public static String skipped(int left, String fullFlag) {
        return "every window's traces are in: the " + left + " remaining stage(s) would profile nothing and are"
                + " skipped (" + fullFlag + " runs them)";
    }
}
