package dev.profiledrollout.trace.reading;

import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.analysis.GpuTimelineBreakdown;
import dev.profiledrollout.trace.analysis.IdleGap;
import dev.profiledrollout.trace.analysis.KernelCategory;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.OperatorStats;
import dev.profiledrollout.trace.analysis.StreamIdle;
import dev.profiledrollout.trace.analysis.StreamQueue;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.trace.baselines.StageKernels;
import dev.profiledrollout.trace.internal.ArrayPool;
import dev.profiledrollout.trace.internal.HtaKernelType;
import dev.profiledrollout.trace.internal.RawEvent;
import dev.profiledrollout.trace.internal.RunningUnion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.HdrHistogram.IntCountsHistogram;

/**
 * The end-of-file half of {@link KinetoTraceReader}: one replay of the GPU timeline in start order computes device
 * busy/span, both {@link TemporalBreakdown}s, idle gaps, step attribution, launch delays, graph coverage and operator
 * GPU time. Memory: O(devices + steps + gaps kept); the timeline itself is streamed from disk when it was spilled.
 */
final class TimelineSweep {

    private static final long USED = Long.MIN_VALUE + 1;
    private static final int COMM = KernelCategory.COMMUNICATION.ordinal();
    private static final int MEM = KernelCategory.MEMORY.ordinal();

    private final KinetoAccumulator acc;
    private final String[] deviceIds;
    private final RunningUnion[] deviceUnions;
    /**
     * The longest gaps so far, {device, duration, start}; its head is the one to drop next: the shortest and, among
     * equally long ones, the latest, so ties keep the earliest gaps whatever the heap's layout.
     */
    private final PriorityQueue<long[]> gaps = new PriorityQueue<>(Comparator.<long[]>comparingLong(g -> g[1])
            .thenComparing(Comparator.<long[]>comparingLong(g -> g[2]).reversed()));
    private final RunningUnion all;
    private final RunningUnion comp = new RunningUnion();
    private final RunningUnion comm = new RunningUnion();
    private final RunningUnion commOrComp = new RunningUnion();
    private final RunningUnion htaAll = new RunningUnion();
    private final RunningUnion htaComp = new RunningUnion();
    private final RunningUnion htaComm = new RunningUnion();
    private final RunningUnion htaCommOrComp = new RunningUnion();
    // TraceLens' GPU timeline (§4): linked events only
    private final RunningUnion traceLensAll = new RunningUnion();
    private final RunningUnion traceLensComp = new RunningUnion();
    private final RunningUnion traceLensComm = new RunningUnion();
    private final RunningUnion traceLensMemcpy = new RunningUnion();
    private final RunningUnion traceLensCompOrComm = new RunningUnion();
    // The unions above by role, for addEach: RunningUnion.add then has three call sites here instead of thirteen, which
    // keeps the JIT's compiled visit small.
    private final RunningUnion[] exactUnions;
    private final RunningUnion[] htaUnions = {htaAll, htaComp, htaComm, htaCommOrComp};
    private final RunningUnion[] traceLensUnions = {traceLensAll, traceLensComp, traceLensComm, traceLensMemcpy,
        traceLensCompOrComm};
    private long traceLensUnlinked;
    private final boolean htaFilter;
    /** Per lane (device, stream): its device; previous event end; events; host wait, kernel wait, other (ns). */
    private final int[] laneDevice;
    private final long[] laneStream;
    private final long[] lanePrevEnd;
    private final long[][] laneIdle;
    private final long[][][] laneQueue;
    private final long[] laneQueueSize;
    private long[] pendingEnds = new long[64];
    private int pendingSize;
    /** The rounded start shared by the pending rows; none before the first row (a rounded start is never MIN_VALUE). */
    private long pendingStart = Long.MIN_VALUE;
    private final IntCountsHistogram delays = HistogramPool.take();
    private long kernelsWithoutLaunch;
    private long kernelNsWithoutOp;
    private long graphKernels;
    private final long[] opGpu;
    private final long[] opGpuEvents;
    private final List<StepStats> steps = new ArrayList<>();
    private final long[][] windows; // start, end, step index; sorted by start
    private final long[] stepKernels;
    private final long[] stepKernelNs;
    /** Per step: GPU window start/end (or first kernel start / last kernel end), running union of its kernels. */
    private final long[] stepGpuStart;
    private final long[] stepGpuEnd;
    private final long[] stepUnionStart;
    private final long[] stepUnionEnd;
    private final long[] stepBusy;
    private final boolean byGpuWindow;
    private final long[][] stageKernelCount; // [stage ordinal][kernel name id]
    private final long[][] stageKernelNs;

    TimelineSweep(KinetoAccumulator acc) {
        this.acc = acc;
        for (int i = 0; i < TraceDetails.MAX_IDLE_GAPS; i++) {
            gaps.add(new long[] {-1, NO_GAP, 0});
        }
        deviceIds = acc.deviceIndex.keySet().toArray(String[]::new);
        deviceUnions = new RunningUnion[deviceIds.length];
        for (int d = 0; d < deviceIds.length; d++) {
            final int device = d;
            deviceUnions[d] = new RunningUnion((start, duration) -> offerGap(device, start, duration));
        }
        all = new RunningUnion();
        exactUnions = new RunningUnion[] {all, comp, comm, commOrComp};
        laneDevice = new int[acc.lanes.size()];
        laneStream = new long[laneDevice.length];
        for (int l = 0; l < laneDevice.length; l++) {
            laneDevice[l] = (int) acc.lanes.get(l)[0];
            laneStream[l] = acc.lanes.get(l)[1];
        }
        lanePrevEnd = new long[laneDevice.length];
        laneIdle = new long[laneDevice.length][4];
        laneQueue = new long[laneDevice.length][2][0];
        laneQueueSize = new long[laneDevice.length];
        htaFilter = acc.profilerStepNames.size() >= 2;
        opGpu = new long[acc.opKeys.size()];
        opGpuEvents = new long[acc.opKeys.size()];
        // Steps: prefer engine step spans (SGLang/vLLM) over ProfilerStep when both exist.
        List<KinetoAccumulator.Span> cpu = preferEngineSteps(acc.cpuSteps);
        cpu.sort(Comparator.comparingLong(KinetoAccumulator.Span::start));
        Map<String, StepStats> parsedNames = new HashMap<>(); // names repeat; parsing runs three regexes
        for (KinetoAccumulator.Span s : cpu) {
            StepStats t = parsedNames.computeIfAbsent(s.name(), n -> StepStats.parse(n, 0, 0));
            steps.add(new StepStats(s.name(), t.stage(), t.batchSize(), t.tokens(), s.start(), s.end() - s.start(),
                    -1, 0, 0, 0, 0, 0));
        }
        int stages = StepStats.Stage.values().length;
        stageKernelCount = new long[stages][steps.isEmpty() ? 0 : acc.kernelNames.size()];
        stageKernelNs = new long[stages][steps.isEmpty() ? 0 : acc.kernelNames.size()];
        stepKernels = new long[steps.size()];
        stepKernelNs = new long[steps.size()];
        stepGpuStart = new long[steps.size()];
        stepGpuEnd = new long[steps.size()];
        stepUnionStart = new long[steps.size()];
        stepUnionEnd = new long[steps.size()];
        stepBusy = new long[steps.size()];
        java.util.Arrays.fill(stepGpuStart, Long.MAX_VALUE);
        java.util.Arrays.fill(stepGpuEnd, Long.MIN_VALUE);
        java.util.Arrays.fill(stepUnionEnd, Long.MIN_VALUE);
        long[] gpuDur = new long[steps.size()];
        java.util.Arrays.fill(gpuDur, -1);
        List<long[]> w = new ArrayList<>();
        Map<String, List<Integer>> cpuByName = new HashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            cpuByName.computeIfAbsent(steps.get(i).name(), n -> new ArrayList<>()).add(i);
        }
        List<KinetoAccumulator.Span> gpu = preferEngineSteps(acc.gpuStepWindows);
        gpu.sort(Comparator.comparingLong(KinetoAccumulator.Span::start));
        Map<String, Integer> seen = new HashMap<>();
        for (KinetoAccumulator.Span g : gpu) {
            List<Integer> candidates = cpuByName.get(g.name());
            int k = seen.merge(g.name(), 1, Integer::sum) - 1;
            if (candidates != null && k < candidates.size()) {
                int step = candidates.get(k);
                w.add(new long[] {g.start(), g.end(), step});
                gpuDur[step] = g.end() - g.start();
                stepGpuStart[step] = g.start();
                stepGpuEnd[step] = g.end();
            }
        }
        byGpuWindow = !w.isEmpty();
        if (!byGpuWindow) {
            for (int i = 0; i < steps.size(); i++) {
                StepStats s = steps.get(i);
                w.add(new long[] {s.startNs(), s.startNs() + s.durationNs(), i});
            }
        }
        w.sort(Comparator.comparingLong(a -> a[0]));
        windows = w.toArray(long[][]::new);
        for (int i = 0; i < steps.size(); i++) {
            steps.set(i, steps.get(i).withGpu(gpuDur[i], 0, 0));
        }
    }

    /** The spans of the most trusted step kind present ({@link StepStats#priority}), so no step counts twice. */
    private static List<KinetoAccumulator.Span> preferEngineSteps(List<KinetoAccumulator.Span> spans) {
        int best = spans.stream().mapToInt(s -> StepStats.priority(s.name())).max().orElse(-1);
        return new ArrayList<>(spans.stream().filter(s -> StepStats.priority(s.name()) == best).toList());
    }

    /** Adds {@code [start, end)} to {@code unions[i]} for each bit i set in {@code mask}. */
    private static void addEach(RunningUnion[] unions, int mask, long start, long end) {
        for (int i = 0; mask != 0; i++, mask >>>= 1) {
            if ((mask & 1) != 0) {
                unions[i].add(start, end);
            }
        }
    }

    private void offerGap(int device, long start, long duration) {
        // The queue starts full of placeholders (NO_GAP), so there is no filling branch; the union's call before its
        // first group (start MIN_VALUE) has a negative duration, or is dropped by the second test when it has not.
        if (duration > gaps.peek()[1] && start != Long.MIN_VALUE) {
            gaps.poll();
            gaps.add(new long[] {device, duration, start});
        }
    }

    /** The duration of the placeholders the gap queue starts with: every real gap is longer. */
    private static final long NO_GAP = 0;

    /*
     * The sweep's per-event code has no branch that only a file's first events take: the joins are sealed and the
     * roofline's call order prepared before the replay, the gap queue starts full of placeholders and the pending
     * HTA rows start with an impossible start. Such branches are never taken while the JIT profiles the first file's
     * sweep, so it compiles them as traps, and in a rank set each thread's next file took them and sent the sweep back
     * to the interpreter for a new compilation (measured with -XX:+LogCompilation on an 8-file set: visit() compiled
     * three times instead of once).
     */
    void run() {
        acc.beforeSweep();
        acc.timeline.replay(this::visit);
        flushHta();
    }

    private void visit(long start, long end, long corr, long ext, int tag, int name) {
        int kind = tag & 3;
        int category = (tag >>> 2) & 15;
        int htaType = (tag >>> 6) & 3;
        boolean traceLensComm = ((tag >>> 8) & 1) != 0;
        int lane = tag >>> 9;
        if (kind == KinetoAccumulator.KIND_HTA_ONLY) {
            if (htaKeeps(corr == RawEvent.NONE ? -1 : acc.launches.find(corr))) {
                hta(htaStart(start), htaEnd(start, end), htaType);
            }
            return;
        }
        boolean kernel = kind == KinetoAccumulator.KIND_KERNEL;
        long dur = end - start;
        int device = laneDevice[lane];
        deviceUnions[device].add(start, end);
        boolean isComm = kernel && category == COMM;
        boolean isComp = kernel && category != COMM && category != MEM;
        addEach(exactUnions, 1 | (isComp ? 2 : 0) | (isComm ? 4 : 0) | (isComm || isComp ? 8 : 0), start, end);
        int launch = corr == RawEvent.NONE ? -1 : acc.launches.find(corr);
        if (htaKeeps(launch)) {
            // µs as HTA reads them: each conversion once per event (the start serves both ends, the launch both the
            // idle category and the queue when the queue's launch is the same call, as it is unless a correlation
            // id repeats)
            double startUs = micros(start);
            long s = (long) Math.ceil(startUs) * 1000;
            long e = htaEnd(startUs, end - start);
            hta(s, e, htaType);
            if (laneStream[lane] != -1) { // HTA's per-stream analyses take GPU events on a stream
                long launchTs = launch >= 0 ? acc.launches.a(launch) : 0;
                long launchStart = launch >= 0 ? htaStart(launchTs) : 0;
                streamIdle(lane, s, e, launch >= 0, launchStart);
                int q = corr == RawEvent.NONE ? -1 : acc.queueLaunches.find(corr);
                if (q >= 0) {
                    long queued = acc.queueLaunches.a(q);
                    queue(lane, launch >= 0 && queued == launchTs ? launchStart : htaStart(queued), s);
                }
            }
        }
        if (launch >= 0) {
            traceLens(start, end, kind, kernel && traceLensComm);
        } else {
            traceLensUnlinked++;
        }
        if (kernel && launch < 0) {
            kernelsWithoutLaunch++;
        }
        if (launch >= 0 && acc.launches.b(launch) != USED) {
            delays.recordValue(Math.max(0, start - acc.launches.b(launch)));
            acc.launches.setB(launch, USED);
        }
        if (corr != RawEvent.NONE) {
            int graph = acc.graphLaunches.find(corr);
            if (graph >= 0) {
                acc.graphLaunches.setB(graph, acc.graphLaunches.b(graph) + 1);
                if (kernel) {
                    graphKernels++;
                }
            }
        }
        acc.roofline.gpuEvent(corr, start, end);
        int op = ext == RawEvent.NONE ? -1 : acc.opsByExternalId.find(ext);
        if (op >= 0) {
            int index = (int) acc.opsByExternalId.a(op);
            opGpu[index] += dur;
            opGpuEvents[index]++;
        } else if (kernel) {
            kernelNsWithoutOp += dur;
        }
        if (kernel && windows.length > 0) {
            long at = byGpuWindow || launch < 0 ? start : acc.launches.a(launch);
            int step = stepAt(at);
            if (step >= 0) {
                stepKernels[step]++;
                stepKernelNs[step] += dur;
                stepBusy(step, start, end);
                if (name >= 0) {
                    int stage = steps.get(step).stage().ordinal();
                    stageKernelCount[stage][name]++;
                    stageKernelNs[stage][name] += dur;
                }
            }
        }
    }

    /**
     * Adds a kernel to its step's running union. Kernels arrive in start order, so each step's kernels do too; with
     * a GPU window the interval is cut to the window (a kernel starting inside may end after it).
     */
    private void stepBusy(int step, long start, long end) {
        if (byGpuWindow) {
            end = Math.min(end, stepGpuEnd[step]);
        } else {
            stepGpuStart[step] = Math.min(stepGpuStart[step], start);
            stepGpuEnd[step] = Math.max(stepGpuEnd[step], end);
        }
        if (end <= start) {
            return;
        }
        if (stepUnionEnd[step] == Long.MIN_VALUE) {
            stepUnionStart[step] = start;
            stepUnionEnd[step] = end;
        } else if (start > stepUnionEnd[step]) {
            stepBusy[step] += stepUnionEnd[step] - stepUnionStart[step];
            stepUnionStart[step] = start;
            stepUnionEnd[step] = end;
        } else {
            stepUnionEnd[step] = Math.max(stepUnionEnd[step], end);
        }
    }

    /**
     * HTA's per-stream idle categories ({@link StreamIdle}): events of a lane arrive in start order, so the previous
     * event of the lane is the one HTA compares with.
     */
    private void streamIdle(int lane, long start, long end, boolean launched, long launchStart) {
        long[] idle = laneIdle[lane];
        // The lane's first event has no gap before it: the mask (0 for it, all ones after) makes its gap 0 without a
        // first-event branch, so whichever category it falls in gains nothing (see run() on first-event branches).
        long seen = idle[0]++;
        long notFirst = -((seen | -seen) >>> 63);
        long prevEnd = lanePrevEnd[lane];
        long gap = (start - prevEnd) & notFirst;
        if (launched && launchStart > prevEnd) {
            idle[1] += gap;
        } else if (gap < StreamIdle.CONSECUTIVE_KERNEL_DELAY_NS) {
            idle[2] += gap;
        } else {
            idle[3] += gap;
        }
        lanePrevEnd[lane] = end;
    }

    /** Per lane: launch times and GPU start times of launched events (starts arrive sorted). */
    private void queue(int lane, long launchNs, long startNs) {
        long[][] q = laneQueue[lane];
        int n = (int) laneQueueSize[lane];
        if (q[0].length == n) {
            q[0] = ArrayPool.grow(q[0], n, n + 1);
            q[1] = ArrayPool.grow(q[1], n, n + 1);
        }
        q[0][n] = launchNs;
        q[1][n] = startNs;
        laneQueueSize[lane] = n + 1;
    }

    List<StreamQueue> streamQueues() {
        List<StreamQueue> list = new ArrayList<>();
        for (int l = 0; l < laneDevice.length; l++) {
            int n = (int) laneQueueSize[l];
            if (n == 0) {
                continue;
            }
            long[] launchesSorted = ArrayPool.longs(n);
            System.arraycopy(laneQueue[l][0], 0, launchesSorted, 0, n);
            long[] starts = laneQueue[l][1];
            java.util.Arrays.sort(launchesSorted, 0, n);
            // length + n: a launch stamped after its start can go below 0; zeros past 2n + 1 are skipped as empty
            long[] counts = ArrayPool.zeroedLongs(2 * n + 1);
            int i = 0;
            int j = 0;
            int length = 0;
            long sum = 0;
            int max = 0;
            while (i < n || j < n) {
                // a rise before a fall at the same time
                if (j >= n || (i < n && launchesSorted[i] <= starts[j])) {
                    length++;
                    i++;
                } else {
                    length--;
                    j++;
                }
                counts[length + n]++;
                sum += length;
                max = Math.max(max, length);
            }
            long points = 2L * n;
            double mean = (double) sum / points;
            double squares = 0; // Σ (x − mean)² over the points, from the histogram
            int min = Integer.MAX_VALUE;
            for (int v = 0; v < counts.length; v++) {
                if (counts[v] > 0) {
                    squares += counts[v] * (v - n - mean) * (v - n - mean);
                    min = Math.min(min, v - n);
                }
            }
            list.add(new StreamQueue(deviceIds[laneDevice[l]], laneStream[l], points, mean,
                    points > 1 ? Math.sqrt(squares / (points - 1)) : Double.NaN, min,
                    quantile(counts, points, 0.25) - n, quantile(counts, points, 0.5) - n,
                    quantile(counts, points, 0.75) - n, max));
            ArrayPool.give(launchesSorted);
            ArrayPool.give(counts);
        }
        list.sort(Comparator.comparing(StreamQueue::deviceId).thenComparingLong(StreamQueue::stream));
        return list;
    }

    /**
     * Gives the stream queues' arrays to this thread's {@link ArrayPool} and the delay histogram to its
     * {@link HistogramPool}, for the next file; {@link #streamQueues()}, {@link #launches()}
     * and {@link #queueSeries()} must not be called afterwards.
     */
    void release() {
        HistogramPool.give(delays);
        for (int l = 0; l < laneQueue.length; l++) {
            ArrayPool.give(laneQueue[l][0]);
            ArrayPool.give(laneQueue[l][1]);
            laneQueue[l] = null;
        }
    }

    /** Every point of every stream's queue-length series ({@link StreamQueue.Point}), by device, stream, then time. */
    List<StreamQueue.Point> queueSeries() {
        List<StreamQueue.Point> points = new ArrayList<>();
        Integer[] order = new Integer[laneDevice.length];
        for (int l = 0; l < order.length; l++) {
            order[l] = l;
        }
        java.util.Arrays.sort(order, Comparator.comparing((Integer l) -> deviceIds[laneDevice[l]])
                .thenComparingLong(l -> laneStream[l]));
        for (int l : order) {
            int n = (int) laneQueueSize[l];
            long[] launchesSorted = java.util.Arrays.copyOf(laneQueue[l][0], n);
            long[] starts = laneQueue[l][1];
            java.util.Arrays.sort(launchesSorted);
            int i = 0;
            int j = 0;
            int length = 0;
            while (i < n || j < n) { // as in streamQueues(): a rise before a fall at the same time
                long ts;
                if (j >= n || (i < n && launchesSorted[i] <= starts[j])) {
                    length++;
                    ts = launchesSorted[i++];
                } else {
                    length--;
                    ts = starts[j++];
                }
                points.add(new StreamQueue.Point(deviceIds[laneDevice[l]], laneStream[l], ts, length));
            }
        }
        return points;
    }

    /**
     * The q-quantile of {@code total} values given as a histogram ({@code counts[v]} values equal to v), interpolated
     * linearly between the two nearest ranks as pandas' {@code describe} does: position {@code (total − 1) q}.
     */
    static double quantile(long[] counts, long total, double q) {
        double position = (total - 1) * q;
        long lower = (long) Math.floor(position);
        double fraction = position - lower;
        long seen = 0;
        int below = -1;
        for (int v = 0; v < counts.length; v++) {
            if (counts[v] == 0) {
                continue;
            }
            if (below < 0 && seen + counts[v] > lower) {
                below = v;
                if (fraction == 0 || seen + counts[v] > lower + 1) {
                    return v;
                }
            } else if (below >= 0) {
                return below + fraction * (v - below);
            }
            seen += counts[v];
        }
        return below;
    }

    List<StreamIdle> streamIdle() {
        List<StreamIdle> list = new ArrayList<>();
        for (int l = 0; l < laneDevice.length; l++) {
            long[] idle = laneIdle[l];
            if (idle[0] > 0) { // streams with events HTA keeps (not -1, not all after the last ProfilerStep)
                list.add(new StreamIdle(deviceIds[laneDevice[l]], laneStream[l], idle[0], idle[1], idle[2], idle[3]));
            }
        }
        list.sort(Comparator.comparing(StreamIdle::deviceId).thenComparingLong(StreamIdle::stream));
        return list;
    }

    /**
     * Whether HTA keeps a GPU event: with two or more ProfilerStep names HTA drops the GPU events whose launch is missing
     * or starts at or after the last ProfilerStep's start ({@code hta/common/trace.py},
     * {@code _filter_irrelevant_gpu_kernels}, applied when the trace is loaded, so to every analysis).
     */
    private boolean htaKeeps(int launch) {
        return !htaFilter || (launch >= 0 && acc.launches.a(launch) < acc.lastProfilerStepStart);
    }

    /**
     * HTA's start of an event at {@code ns}, in ns: HTA parses µs into float64 and, for traces with fractional
     * µs, takes {@code ceil(ts)} ({@code hta/common/trace_parser.py}, {@code round_down_time_stamps}); for whole µs that
     * changes nothing.
     */
    static long htaStart(long ns) {
        return (long) Math.ceil(micros(ns)) * 1000;
    }

    /** HTA's end of an event, in ns: {@code floor(ts + dur)} with both in float64 µs (same source). */
    static long htaEnd(long start, long end) {
        return htaEnd(micros(start), end - start);
    }

    /** {@link #htaEnd(long, long)} of an event starting at {@code startUs} ({@link #micros} of its start). */
    private static long htaEnd(double startUs, long durationNs) {
        // at epoch µs (≈1.7e15) a double resolves 0.25 µs, so floor(ts + dur) can differ from the exact value
        return (long) Math.floor(startUs + micros(durationNs)) * 1000;
    }

    /** One GPU row of HTA's temporal breakdown, in HTA's rounded ns. */
    private void hta(long s, long e, int htaType) {
        // HTA sorts rows by (ts, end) after rounding; distinct exact starts can round to one µs, and with HTA's
        // negative sub-µs durations the order among them matters, so rows sharing a rounded start wait here.
        if (s != pendingStart) {
            flushHta();
            pendingStart = s;
        }
        if (pendingSize == pendingEnds.length) {
            pendingEnds = java.util.Arrays.copyOf(pendingEnds, pendingSize * 2);
        }
        pendingEnds[pendingSize++] = e * 4 + htaType; // e is a multiple of 1000, so the type fits in 2 bits
    }

    /**
     * The double nearest to {@code ns / 1000} µs, as parsing the decimal text gives: below 2^53 the long converts
     * exactly and IEEE division rounds correctly. Above (epoch ns), {@code whole + rest / 1000.0}: whole µs are exact
     * in a double (below 2^53; beyond, BigDecimal), and the one rounding of the sum gives the nearest double, because a sum of at most
     * three decimals lies either on a rounding midpoint (then {@code rest / 1000.0} is exact) or at least 2^-10 / 1000
     * from one, far beyond the error of {@code rest / 1000.0} (checked against BigDecimal in TimelineSweepMicrosTest).
     */
    static double micros(long ns) {
        if (Math.abs(ns) < (1L << 53)) {
            return ns / 1000.0;
        }
        long whole = Math.floorDiv(ns, 1000L);
        if (Math.abs(whole) >= (1L << 53)) { // beyond year 2255 in epoch ns: whole µs are not exact in a double
            return java.math.BigDecimal.valueOf(ns, 3).doubleValue();
        }
        return (double) whole + Math.floorMod(ns, 1000L) / 1000.0;
    }

    private void flushHta() {
        if (pendingSize > 1) {
            java.util.Arrays.sort(pendingEnds, 0, pendingSize);
        }
        for (int i = 0; i < pendingSize; i++) {
            htaRow(pendingStart, Math.floorDiv(pendingEnds[i], 4), Math.floorMod(pendingEnds[i], 4));
        }
        pendingSize = 0;
    }

    private void htaRow(long s, long e, int htaType) {
        boolean isComp = htaType == HtaKernelType.COMPUTATION;
        boolean isComm = htaType == HtaKernelType.COMMUNICATION;
        addEach(htaUnions, 1 | (isComp ? 2 : 0) | (isComm ? 4 : 0) | (isComm || isComp ? 8 : 0), s, e);
    }

    private void traceLens(long start, long end, int kind, boolean comm) {
        // all, comp, comm, memcpy, comp or comm
        int mask = kind == KinetoAccumulator.KIND_MEMCPY ? 1 | 8 : 1 | (comm ? 4 : 2) | 16;
        addEach(traceLensUnions, mask, start, end);
    }

    GpuTimelineBreakdown gpuTimeline() {
        long busy = traceLensAll.total();
        long total = traceLensAll.span();
        return new GpuTimelineBreakdown(traceLensComp.total(), traceLensComm.total(), traceLensMemcpy.total(),
                traceLensCompOrComm.total() - traceLensComp.total(), busy - traceLensCompOrComm.total(), busy, total,
                total - busy, traceLensUnlinked);
    }

    /** The step whose window contains {@code t}: the last window starting at or before t, if it ends after t. */
    private int stepAt(long t) {
        int lo = 0;
        int hi = windows.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (windows[mid][0] <= t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        for (int i = found, stop = Math.max(found - 4, -1); i > stop; i--) {
            if (t < windows[i][1]) {
                return (int) windows[i][2];
            }
        }
        return -1;
    }

    List<DeviceStats> devices() {
        List<DeviceStats> list = new ArrayList<>();
        for (int d = 0; d < deviceIds.length; d++) {
            list.add(new DeviceStats(deviceIds[d], deviceUnions[d].total(), deviceUnions[d].span()));
        }
        return list;
    }

    TemporalBreakdown exact() {
        return breakdown(false, all, comp, comm, commOrComp);
    }

    TemporalBreakdown htaCompatible() {
        return breakdown(true, htaAll, htaComp, htaComm, htaCommOrComp);
    }

    private static TemporalBreakdown breakdown(boolean hta, RunningUnion all, RunningUnion comp, RunningUnion comm,
                                               RunningUnion either) {
        long span = all.span();
        long idle = span - all.total();
        long compute = comp.total();
        long overlap = comm.total() + comp.total() - either.total();
        return new TemporalBreakdown(hta, span, idle, compute, span - compute - idle, comm.total(), overlap);
    }

    List<IdleGap> idleGaps() {
        List<long[]> list = new ArrayList<>(gaps);
        list.removeIf(g -> g[1] == NO_GAP);
        list.sort(Comparator.<long[]>comparingLong(g -> g[1]).reversed().thenComparingLong(g -> g[2]));
        List<IdleGap> result = new ArrayList<>();
        for (long[] g : list) {
            result.add(new IdleGap(deviceIds[(int) g[0]], g[2], g[1], innermostAnnotation(g[2])));
        }
        return result;
    }

    private String innermostAnnotation(long t) {
        KinetoAccumulator.Span best = null;
        for (KinetoAccumulator.Span s : acc.annotations) {
            if (s.start() <= t && t < s.end() && (best == null || s.end() - s.start() < best.end() - best.start())) {
                best = s;
            }
        }
        return best == null ? "" : best.name();
    }

    List<StepStats> steps() {
        List<StepStats> list = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            StepStats s = steps.get(i);
            boolean hasSpan = stepGpuStart[i] != Long.MAX_VALUE && stepGpuEnd[i] >= stepGpuStart[i];
            long busy = stepBusy[i] + (stepUnionEnd[i] == Long.MIN_VALUE ? 0 : stepUnionEnd[i] - stepUnionStart[i]);
            list.add(s.withGpu(s.gpuDurationNs(), stepKernels[i], stepKernelNs[i]).withGpuSpan(
                    hasSpan ? stepGpuStart[i] : 0, hasSpan ? stepGpuEnd[i] - stepGpuStart[i] : 0, busy));
        }
        return list;
    }

    /** Per stage with steps: steps, tokens (when every step has them), kernel time and per-kernel totals. */
    List<StageKernels> stageKernels() {
        List<StageKernels> list = new ArrayList<>();
        for (StepStats.Stage stage : StepStats.Stage.values()) {
            long count = 0;
            long ns = 0;
            long tokens = 0;
            boolean tokensKnown = true;
            long requests = 0;
            boolean requestsKnown = true;
            for (int i = 0; i < steps.size(); i++) {
                StepStats s = steps.get(i);
                if (s.stage() == stage) {
                    count++;
                    ns += stepKernelNs[i];
                    tokensKnown &= s.tokens().isPresent();
                    tokens += s.tokens().orElse(0);
                    requestsKnown &= s.batchSize().isPresent();
                    requests += s.batchSize().orElse(0);
                }
            }
            if (count == 0) {
                continue;
            }
            Map<String, long[]> kernels = new java.util.LinkedHashMap<>();
            int o = stage.ordinal();
            for (int k = 0; k < stageKernelCount[o].length; k++) {
                if (stageKernelCount[o][k] > 0) {
                    kernels.put(acc.kernelNames.get(k), new long[] {stageKernelCount[o][k], stageKernelNs[o][k]});
                }
            }
            list.add(new StageKernels(stage, count, tokensKnown ? java.util.OptionalLong.of(tokens)
                    : java.util.OptionalLong.empty(), requestsKnown ? java.util.OptionalLong.of(requests)
                    : java.util.OptionalLong.empty(), ns, StageKernels.toStats(kernels)));
        }
        return list;
    }

    LaunchStats launches() {
        long[] graphs = new long[2];
        acc.graphLaunches.forEach((corr, ts, events) -> {
            graphs[0]++;
            if (events == 0) {
                graphs[1]++;
            }
        });
        return new LaunchStats(acc.launchCount, percentile(acc.launchDurations, 50),
                percentile(acc.launchDurations, 99), percentile(delays, 50), percentile(delays, 99), graphs[0],
                graphs[1], graphKernels, kernelsWithoutLaunch, kernelNsWithoutOp);
    }

    private static long percentile(IntCountsHistogram h, double p) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p);
    }

    List<OperatorStats> operators() {
        List<OperatorStats> list = new ArrayList<>();
        for (int i = 0; i < acc.opKeys.size(); i++) {
            String[] key = acc.opKeys.get(i);
            long[] agg = acc.opAggs.get(i);
            list.add(new OperatorStats(key[0], key[1], agg[0], agg[1], opGpuEvents[i], opGpu[i]));
        }
        list.sort(OperatorStats.BY_GPU_THEN_CPU);
        return list;
    }
}
