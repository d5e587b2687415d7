package dev.profiledrollout.trace.reading;

import dev.profiledrollout.metrics.HistogramPercentile;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.StepStats;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.KernelCategory;
import dev.profiledrollout.trace.analysis.StreamQueue;
import dev.profiledrollout.trace.internal.EventParser;
import dev.profiledrollout.trace.internal.GpuTimeline;
import dev.profiledrollout.trace.internal.HtaKernelType;
import dev.profiledrollout.trace.internal.IdJoin;
import dev.profiledrollout.trace.internal.IndexSlots;
import dev.profiledrollout.trace.internal.LongLongMap;
import dev.profiledrollout.trace.internal.MicrosToNanos;
import dev.profiledrollout.trace.internal.NameMemo;
import dev.profiledrollout.trace.internal.RawEvent;
import dev.profiledrollout.trace.roofline.RooflineAccumulator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.HdrHistogram.IntCountsHistogram;

/**
 * The streaming half of {@link KinetoTraceReader}: receives events one by one and keeps only aggregates, the GPU
 * timeline ({@link GpuTimeline}, bounded) and the join tables. {@link TimelineSweep} does the rest at the end.
 *
 * <p>Memory beyond the bounded timeline: per distinct kernel name four longs and a histogram; per CPU runtime event
 * with a correlation id one {@link IdJoin} entry (24 bytes; 16 more for HTA's launch calls); per {@code cpu_op} with
 * an {@code External id} one entry of 16 bytes; per CPU annotation one small object (at most {@value #MAX_ANNOTATIONS}); the
 * roofline join ({@link RooflineAccumulator}). Confined
 * to the reading thread.
 */
final class KinetoAccumulator implements KinetoTraceReader.Sink {

    static final int MAX_ANNOTATIONS = 200_000;
    static final int KIND_KERNEL = 0;
    static final int KIND_MEMCPY = 1;
    static final int KIND_MEMSET = 2;
    /**
     * A record HTA counts as GPU time and the exact mode does not: a CUDA synchronization record on a stream
     * ({@code cuda_sync} with {@code args.stream ≥ 0}), or a CPU event that carries {@code args.stream} other than −1
     * (Triton's {@code cpu_op} launches do). HTA's breakdowns select GPU rows by {@code stream != -1}
     * (HolisticTraceAnalysis {@code hta/analyzers/breakdown_analysis.py}, {@code get_temporal_breakdown};
     * {@code hta/common/trace_filter.py}, {@code GPUKernelFilter}); only the HTA-compatible mode sees these.
     */
    static final int KIND_HTA_ONLY = 3;

    /** Per kernel name: count, total, min, max, and a duration histogram (2 significant digits). */
    static final class KernelAgg {
        long count;
        long total;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        IntCountsHistogram histogram;
        int category = -1;
        int htaType = -1;
        /** TraceLens' communication rule (§4): {@code nccl|rccl} in any case, or {@code cross_device_reduce}. */
        boolean traceLensComm;
        /** Index into {@link #kernelNames} (kernels only), the name id the GPU timeline carries. */
        int id = -1;
    }

    /** TraceLens' communication rule, {@code docs/TRACES.md} §4. */
    static boolean isTraceLensComm(String name) {
        String lower = name.toLowerCase(java.util.Locale.ROOT);
        return lower.contains("nccl") || lower.contains("rccl") || name.contains("cross_device_reduce");
    }

    /** A CPU or GPU annotation span. */
    record Span(String name, long start, long end) {
    }

    final KernelCategories categories;
    final Map<String, KernelAgg> kernels = new HashMap<>();
    final List<String> kernelNames = new ArrayList<>();
    final Map<String, KernelAgg> memoryNames = new HashMap<>();
    final Map<String, Integer> deviceIndex = new LinkedHashMap<>();
    /** Per (device, stream) lane, in first-seen order: its device index and stream (-1 when absent). */
    final List<long[]> lanes = new ArrayList<>();
    /** (device << 40 ^ stream) → lane index. */
    private final LongLongMap laneIndex = new LongLongMap();
    private int lastLane = -1;
    private String lastPid;
    private int lastDevice;
    final GpuTimeline timeline = new GpuTimeline();
    /** {@link #KIND_HTA_ONLY} events seen. */
    long htaOnlyEvents;
    final List<String> warnings = new ArrayList<>();
    final IdJoin launches = new IdJoin();
    /** correlation → launch ts of HTA's launch calls ({@link StreamQueue}). */
    final IdJoin queueLaunches = IdJoin.keysAndA(); // correlation → cpu ts
    final IdJoin graphLaunches = new IdJoin(); // correlation → (cpu ts, GPU events seen)
    private boolean histogramsReleased;
    final IntCountsHistogram launchDurations = HistogramPool.take();
    long launchCount;
    final IdJoin opsByExternalId = IdJoin.keysAndA(); // External id → op index
    /**
     * (op name, input dims) → index into {@link #opKeys}. An int lookup: a {@code Map<String, Integer>} answered null
     * for each new key, which the JIT had compiled as never null, and the first new operator after compilation
     * recompiled the CPU-event path (a rank set's later files bring new shapes).
     */
    private final IndexSlots opSlots = new IndexSlots();
    final List<String[]> opKeys = new ArrayList<>();
    final List<long[]> opAggs = new ArrayList<>(); // count, cpuNs
    final RooflineAccumulator roofline = new RooflineAccumulator();
    /** {@code deviceProperties[].name}, first listed device; null when absent. */
    String deviceName;
    final List<Span> annotations = new ArrayList<>();
    final List<Span> cpuSteps = new ArrayList<>();
    final List<Span> gpuStepWindows = new ArrayList<>();
    final Set<String> profilerStepNames = new HashSet<>();
    long lastProfilerStepStart = Long.MIN_VALUE;
    boolean sawEvents;
    long kernelEvents;
    long memoryEvents;
    long memoryNs;
    long badTimes;
    long droppedAnnotations;
    OptionalInt distributedRank = OptionalInt.empty();
    OptionalLong baseTimeNs = OptionalLong.empty();
    long eventsSeen;

    KinetoAccumulator(KernelCategories categories) {
        this.categories = categories;
    }

    @Override
    public long gpuEvents() {
        return kernelEvents + memoryEvents;
    }

    @Override
    public boolean sawEvents() {
        return sawEvents;
    }

    @Override
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public void close() {
        timeline.close();
        launches.release();
        queueLaunches.release();
        graphLaunches.release();
        opsByExternalId.release();
        roofline.release();
        if (!histogramsReleased) { // close() may come twice; a histogram given twice would be shared
            histogramsReleased = true;
            kernels.values().forEach(agg -> HistogramPool.give(agg.histogram));
            HistogramPool.give(launchDurations);
        }
    }

    @Override
    public void eventsStarted() {
        sawEvents = true;
    }

    @Override
    public void baseTimeNanoseconds(long ns) {
        baseTimeNs = OptionalLong.of(ns);
    }

    @Override
    public void deviceName(String name) {
        if (deviceName == null) {
            deviceName = name;
        }
    }

    @Override
    public void distributedRank(int rank) {
        distributedRank = OptionalInt.of(rank);
    }

    @Override
    public void event(RawEvent e) {
        eventsSeen++;
        if (!e.complete || e.cat == RawEvent.CAT_ABSENT || e.cat == RawEvent.CAT_OTHER) {
            return;
        }
        int kind = switch (e.cat) {
            case RawEvent.CAT_KERNEL -> KIND_KERNEL;
            case RawEvent.CAT_MEMCPY -> KIND_MEMCPY;
            case RawEvent.CAT_MEMSET -> KIND_MEMSET;
            default -> -1;
        };
        if (e.badTime) {
            if (kind >= 0) {
                badTimes++;
            }
            return;
        }
        if (e.tsNs == RawEvent.NONE || e.durNs == RawEvent.NONE) {
            return;
        }
        String name = e.name == null ? "" : e.name;
        if (e.cat == RawEvent.CAT_CUDA_SYNC) {
            if (e.stream != RawEvent.NONE && e.stream >= 0) {
                htaOnlyEvents++;
                timeline.add(e.tsNs, e.tsNs + e.durNs, e.correlation, RawEvent.NONE,
                        KIND_HTA_ONLY | (HtaKernelType.of(name) << 6), -1);
            }
            return;
        }
        if (kind >= 0) {
            gpuEvent(kind, name, e.pid == null ? "" : e.pid, e.stream, e.tsNs, e.durNs, e.correlation, e.externalId);
        } else {
            if (e.stream != RawEvent.NONE && e.stream != -1) {
                // a CPU event with args.stream (Triton's cpu_op launches carry "stream": 0): HTA takes it as a GPU row
                htaOnlyEvents++;
                timeline.add(e.tsNs, e.tsNs + e.durNs, e.correlation, RawEvent.NONE,
                        KIND_HTA_ONLY | (HtaKernelType.of(name) << 6), -1);
            }
            cpuEvent(e.cat, name, e.tsNs, e.durNs, e);
        }
    }

    private void gpuEvent(int kind, String name, String pid, long stream, long ts, long dur, long corr, long ext) {
        KernelAgg agg;
        if (kind == KIND_KERNEL) {
            kernelEvents++;
            agg = kernels.get(name);
            if (agg == null) {
                agg = new KernelAgg();
                agg.category = categories.categoryOf(name).ordinal();
                agg.htaType = HtaKernelType.of(name);
                agg.traceLensComm = isTraceLensComm(name);
                agg.histogram = HistogramPool.take();
                agg.id = kernelNames.size();
                kernelNames.add(name);
                kernels.put(name, agg);
            }
            agg.count++;
            agg.total += dur;
            agg.min = Math.min(agg.min, dur);
            agg.max = Math.max(agg.max, dur);
            agg.histogram.recordValue(Math.max(0, dur));
        } else {
            memoryEvents++;
            memoryNs += dur;
            agg = memoryNames.get(name);
            if (agg == null) {
                agg = new KernelAgg(); // no histogram: memcpy/memset names only need their types
                agg.category = KernelCategory.MEMORY.ordinal();
                agg.htaType = HtaKernelType.of(name);
                if (memoryNames.size() < 10_000) {
                    memoryNames.put(name, agg);
                }
            }
        }
        int device;
        if (pid == lastPid) { // the same String instance: the scanner's cache hands out one per distinct pid
            device = lastDevice;
        } else {
            Integer known = deviceIndex.get(pid);
            if (known == null) {
                known = deviceIndex.size();
                deviceIndex.put(pid, known);
            }
            device = known;
            lastPid = pid;
            lastDevice = device;
        }
        long streamId = stream == RawEvent.NONE ? -1 : stream;
        int lane = lastLane;
        if (lane < 0 || lanes.get(lane)[0] != device || lanes.get(lane)[1] != streamId) {
            lane = lane(device, streamId); // only when the device or stream changes
            lastLane = lane;
        }
        int tag = kind | (agg.category << 2) | (agg.htaType << 6) | (agg.traceLensComm ? 1 << 8 : 0) | (lane << 9);
        timeline.add(ts, ts + dur, corr, ext, tag, agg.id);
    }

    /**
     * Readies every lookup the sweep makes (the joins sealed, the roofline's call order prepared), so that the sweep's
     * per-event code has no branch that only a file's first event takes ({@link TimelineSweep#run()}).
     */
    void beforeSweep() {
        launches.seal();
        queueLaunches.seal();
        graphLaunches.seal();
        opsByExternalId.seal();
        roofline.beforeSweep();
    }

    /** The lane index of (device, stream), adding it in first-seen order. */
    private int lane(int device, long streamId) {
        int at = laneIndex.find(((long) device << 40) ^ streamId);
        if (at >= 0 && lanes.get((int) laneIndex.a(at))[0] == device && lanes.get((int) laneIndex.a(at))[1] == streamId) {
            return (int) laneIndex.a(at);
        }
        for (int i = 0; i < lanes.size(); i++) { // a key collision (streams beyond 2^40): fall back to a scan
            if (lanes.get(i)[0] == device && lanes.get(i)[1] == streamId) {
                return i;
            }
        }
        int lane = lanes.size();
        laneIndex.putIfAbsent(((long) device << 40) ^ streamId, lane, 0);
        lanes.add(new long[] {device, streamId});
        return lane;
    }

    private static final int NAME_LAUNCH = 1;
    private static final int NAME_HTA_LAUNCH = 2;
    private static final int NAME_GRAPH_LAUNCH = 4;
    private static final int NAME_PROFILER_STEP = 8;
    private static final int NAME_PROFILER_STEP_PREFIX = 16;

    /**
     * The NAME_* facts of CPU event names: names repeat every step, and each fact is a string test. Shared by every
     * reader of the JVM (the facts depend on the name alone): the names of one trace are those of the next, so a
     * fresh reader does not begin with a run of misses, which the JIT would meet as a new branch in compiled code.
     */
    private static final NameMemo<Integer> NAME_FACTS = new NameMemo<>(10_000, KinetoAccumulator::computeNameFacts);

    private static int nameFacts(String name) {
        return NAME_FACTS.get(name);
    }

    private static int computeNameFacts(String name) {
        return (isLaunch(name) ? NAME_LAUNCH : 0)
                | (StreamQueue.isHtaLaunch(name) ? NAME_HTA_LAUNCH : 0)
                | (name.contains("GraphLaunch") ? NAME_GRAPH_LAUNCH : 0)
                | (name.contains("ProfilerStep") ? NAME_PROFILER_STEP : 0)
                | (name.startsWith("ProfilerStep#") ? NAME_PROFILER_STEP_PREFIX : 0);
    }

    private void cpuEvent(int cat, String name, long ts, long dur, RawEvent e) {
        long end = ts + Math.max(0, dur);
        int facts = nameFacts(name);
        if (e.correlation != RawEvent.NONE && cat == RawEvent.CAT_RUNTIME) {
            launches.putIfAbsent(e.correlation, ts, end);
            if ((facts & NAME_HTA_LAUNCH) != 0) {
                queueLaunches.putIfAbsent(e.correlation, ts, 0);
            }
            roofline.runtime(e);
            if ((facts & NAME_LAUNCH) != 0) {
                launchCount++;
                launchDurations.recordValue(Math.max(0, dur));
                if ((facts & NAME_GRAPH_LAUNCH) != 0) {
                    graphLaunches.putIfAbsent(e.correlation, ts, 0);
                }
            }
        }
        if (cat != RawEvent.CAT_GPU_USER_ANNOTATION && (facts & NAME_PROFILER_STEP) != 0) {
            profilerStepNames.add(name);
            lastProfilerStepStart = Math.max(lastProfilerStepStart, ts);
        }
        switch (cat) {
            case RawEvent.CAT_CPU_OP -> {
                roofline.cpuOp(name, e);
                if (e.externalId != RawEvent.NONE) {
                    operator(name, e.inputDims == null ? "" : e.inputDims, ts, dur, e.externalId);
                }
                if ((facts & NAME_PROFILER_STEP_PREFIX) != 0) {
                    cpuSteps.add(new Span(name, ts, end));
                }
            }
            case RawEvent.CAT_USER_ANNOTATION -> {
                if (isStepName(name)) {
                    cpuSteps.add(new Span(name, ts, end));
                }
                if (annotations.size() < MAX_ANNOTATIONS) {
                    annotations.add(new Span(name, ts, end));
                } else {
                    droppedAnnotations++;
                }
            }
            case RawEvent.CAT_GPU_USER_ANNOTATION -> {
                if (isStepName(name)) {
                    gpuStepWindows.add(new Span(name, ts, end));
                }
            }
            default -> {
                // cuda_runtime / cuda_driver: handled above
            }
        }
    }

    private void operator(String name, String dims, long ts, long dur, long externalId) {
        int index = opIndex(name, dims);
        long[] agg = opAggs.get(index);
        agg[0]++;
        agg[1] += Math.max(0, dur);
        opsByExternalId.putIfAbsent(externalId, index, 0);
    }

    /** The index of (name, dims) in {@link #opKeys}, added when new. */
    private int opIndex(String name, String dims) {
        int hash = name.hashCode() * 31 + dims.hashCode();
        for (int slot = opSlots.first(hash); ; slot = opSlots.next(slot)) {
            int index = opSlots.row(slot);
            if (index < 0) {
                index = opKeys.size();
                opKeys.add(new String[] {name, dims});
                opAggs.add(new long[2]);
                opSlots.add(slot, index, hash);
                return index;
            }
            if (opSlots.hash(index) == hash) {
                String[] key = opKeys.get(index);
                if ((key[0] == name || key[0].equals(name)) && (key[1] == dims || key[1].equals(dims))) {
                    return index;
                }
            }
        }
    }

    /** Step-name answers by annotation name (names repeat every step; the check runs three regexes), shared as above. */
    private static final NameMemo<Boolean> STEP_NAMES = new NameMemo<>(10_000, StepStats::isStepName);

    private static boolean isStepName(String name) {
        return STEP_NAMES.get(name);
    }

    /** Kernel and graph launch API names (CUDA runtime/driver, HIP). */
    static boolean isLaunch(String name) {
        return name.startsWith("cudaLaunchKernel") || name.startsWith("cuLaunchKernel")
                || name.startsWith("cudaGraphLaunch") || name.startsWith("hipLaunchKernel")
                || name.startsWith("hipExtModuleLaunchKernel") || name.startsWith("hipModuleLaunchKernel")
                || name.startsWith("hipGraphLaunch") || name.startsWith("cudaLaunchCooperativeKernel");
    }

    /** The per-name kernel aggregates as public stats, sorted by total descending. */
    List<KernelStats> kernelStats() {
        List<KernelStats> list = new ArrayList<>(kernels.size());
        for (Map.Entry<String, KernelAgg> e : kernels.entrySet()) {
            KernelAgg k = e.getValue();
            // clamped: HdrHistogram's bucket rounding can otherwise put p99 above the exact max
            list.add(new KernelStats(e.getKey(), k.count, k.total, k.min, k.max,
                    HistogramPercentile.valueAt(k.histogram, 50, k.min, k.max),
                    HistogramPercentile.valueAt(k.histogram, 99, k.min, k.max)));
        }
        list.sort(KernelStats.BY_TOTAL_DESCENDING);
        return list;
    }

    /** Per category: kernels by their rule, memcpy/memset as MEMORY; shares of all GPU event time. */
    List<CategoryStats> categoryStats() {
        long[] counts = new long[KernelCategory.values().length];
        long[] totals = new long[counts.length];
        long all = memoryNs;
        for (KernelAgg k : kernels.values()) {
            counts[k.category] += k.count;
            totals[k.category] += k.total;
            all += k.total;
        }
        counts[KernelCategory.MEMORY.ordinal()] += memoryEvents;
        totals[KernelCategory.MEMORY.ordinal()] += memoryNs;
        List<CategoryStats> list = new ArrayList<>();
        for (KernelCategory c : KernelCategory.values()) {
            if (counts[c.ordinal()] > 0) {
                list.add(new CategoryStats(c, counts[c.ordinal()], totals[c.ordinal()],
                        all == 0 ? 0 : (double) totals[c.ordinal()] / all));
            }
        }
        return list;
    }
}
