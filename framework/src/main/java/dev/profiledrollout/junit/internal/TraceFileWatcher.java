package dev.profiledrollout.junit.internal;

import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_MISSING_GRACE;
import static dev.profiledrollout.ProfiledRolloutKeys.TRACE_TIMEOUT;

import dev.profiledrollout.ProfiledRolloutException;
import dev.profiledrollout.trace.files.TraceFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Waits until a profiler output directory holds the expected number of trace files and none of them is still growing.
 * Which files count is {@link TraceFiles#rankTraces}'s rule.
 *
 * <p>Why: SGLang writes auto-stopped captures at the start of a later batch, and some vLLM variants export on a
 * background thread after answering {@code /stop_profile} ({@code docs/PROTOCOLS.md} §1.1, §2.3), so a file can exist
 * before it is complete. A file counts as complete when its size is non-zero and unchanged over {@code stableFor}.
 *
 * <p>With {@link #failMissingAfter} the wait also ends early, when some files are complete, others are still missing
 * and nothing in the directory has appeared or grown for the grace period: SGLang answers a profile call with DP rank
 * 0's result only ({@code _execute_profile} in {@code python/sglang/srt/managers/tokenizer_control_mixin.py}), so a
 * rank whose profiler failed leaves no other trace than its absent file.
 */
final class TraceFileWatcher {

    private static final Duration POLL = Duration.ofMillis(100);
    /** How often {@link #endWhenUnreachable}'s probe asks the engine. */
    static final Duration PROBE_EVERY = Duration.ofMillis(500);

    private final Path directory;
    private final int expected;
    private final Duration timeout;
    private final Duration stableFor;
    private final Set<String> ignore;

    private final boolean nested;
    private Duration missingGrace;
    private ExpectedRanks ranks;
    private String missingHint = "";
    private Supplier<Optional<String>> unreachable;

    TraceFileWatcher(Path directory, int expected, Duration timeout, Duration stableFor) {
        this(directory, expected, timeout, stableFor, Set.of(), false);
    }

    /**
     * @param expected the rank files to wait for; when unknown pass 1 and a longer {@code stableFor}: the watcher then
     *                 returns once no file has appeared or grown for that long
     * @param ignore   paths relative to {@code directory} that were there before the capture (a vLLM directory is
     *                 shared between windows)
     * @param nested   also look one level down ({@code worker-<i>/}: one vLLM profiler directory per host)
     */
    TraceFileWatcher(Path directory, int expected, Duration timeout, Duration stableFor, Set<String> ignore,
            boolean nested) {
        this.nested = nested;
        this.ignore = Set.copyOf(ignore);
        this.directory = directory;
        this.expected = expected;
        this.timeout = timeout;
        this.stableFor = stableFor;
    }

    /**
     * Ends the wait once files are complete and the missing ones have not appeared for {@code grace}.
     *
     * @param grace  how long the directory must stay unchanged, with some files complete and some missing
     * @param ranks  the expected files, to name the missing ranks
     * @param hint   what else may explain the missing files (e.g. auto-stop timing), may be empty
     * @return this watcher
     */
    TraceFileWatcher failMissingAfter(Duration grace, ExpectedRanks ranks, String hint) {
        this.missingGrace = grace;
        this.ranks = ranks;
        this.missingHint = hint;
        return this;
    }

    /**
     * Ends the wait early when, with no file in the directory yet, {@code probe} says why none will come (e.g.
     * {@link UnreachableWindow}). Asked every {@link #PROBE_EVERY}.
     *
     * @param probe why no file will come, or empty while one still may; not null
     * @return this watcher
     */
    TraceFileWatcher endWhenUnreachable(Supplier<Optional<String>> probe) {
        this.unreachable = Objects.requireNonNull(probe, "probe");
        return this;
    }

    /**
     * @param hint what to suggest when the files never appear
     * @return the complete trace files, sorted by name
     * @throws ProfiledRolloutException when fewer than the expected files are complete after the timeout
     * @throws MissingRankFilesException  with {@link #failMissingAfter}, when the missing files stopped coming
     * @throws ProfiledRolloutException   with {@link #endWhenUnreachable}, as soon as its probe says no file will come
     */
    List<Path> await(String hint) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<Path, Long> sizes = new HashMap<>();
        Map<Path, Long> stableSince = new HashMap<>();
        List<Path> files = List.of();
        long lastChange = System.nanoTime();
        long lastProbe = lastChange - PROBE_EVERY.toNanos();
        while (true) {
            long now = System.nanoTime();
            files = TraceFiles.rankTraces(directory, nested, ignore);
            int complete = 0;
            for (Path file : files) {
                long size = size(file);
                Long previous = sizes.put(file, size);
                if (previous == null || previous != size) {
                    lastChange = now;
                }
                if (previous == null || previous != size || size == 0) {
                    stableSince.put(file, now);
                } else if (now - stableSince.get(file) >= stableFor.toNanos()) {
                    complete++;
                }
            }
            if (files.size() >= expected && complete == files.size()) {
                return files;
            }
            if (missingGrace != null && complete > 0 && complete == files.size()
                    && now - lastChange >= missingGrace.toNanos()) {
                throw missing(files);
            }
            if (unreachable != null && files.isEmpty() && now - lastProbe >= PROBE_EVERY.toNanos()) {
                lastProbe = now;
                Optional<String> why = unreachable.get();
                if (why.isPresent()) {
                    throw new ProfiledRolloutException(String.format(
                            "No trace file will come to %s (found 0 of %d, without waiting the %s of %s): %s. %s",
                            directory, expected, timeout, TRACE_TIMEOUT, why.get(), hint));
                }
            }
            if (now > deadline) {
                throw new ProfiledRolloutException(String.format(
                        "Waited %s for %d trace file(s) in %s; found %d (%d complete): %s. %s "
                                + "Raise %s if the export is slow.",
                        timeout, expected, directory, files.size(), complete,
                        files.stream().map(p -> p.getFileName() + " (" + size(p) + " bytes)")
                                .collect(Collectors.toList()),
                        hint, TRACE_TIMEOUT));
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private MissingRankFilesException missing(List<Path> files) {
        List<String> missing = ranks.missing(files);
        String which = missing.isEmpty()
                ? (expected - files.size()) + " of " + expected + " trace file(s) never appeared"
                : "The trace files of " + missing.size() + " rank(s) never appeared: " + String.join(", ", missing);
        String cause = ranks.onlyOtherDpRanks(missing)
                ? "Likely cause: the profiler failed on a DP rank other than 0. SGLang answers /start_profile and"
                        + " /stop_profile with DP rank 0's result only, so that failure is not reported to the client;"
                        + " check the server log of the missing DP rank(s) for the profiler error."
                : "Likely cause: the profiler of those ranks failed or their export is still running; check the server"
                        + " log for the profiler error.";
        return new MissingRankFilesException(String.format(
                "%s (expected %d file(s) in %s; %d arrived and are kept: %s). Nothing appeared or grew for %s (%s)"
                        + " after the others were complete. %s%s Raise %s if those ranks only export slowly.",
                which, expected, directory, files.size(),
                files.stream().map(p -> p.getFileName().toString()).collect(Collectors.toList()), missingGrace,
                TRACE_MISSING_GRACE, cause, missingHint.isEmpty() ? "" : " " + missingHint,
                TRACE_MISSING_GRACE), files);
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0; // vanished or unreadable between list and stat: treat as not yet complete
        }
    }
}
