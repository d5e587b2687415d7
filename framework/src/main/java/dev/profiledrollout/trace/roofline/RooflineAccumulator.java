package dev.profiledrollout.trace.roofline;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.trace.internal.ArrayPool;
import dev.profiledrollout.trace.internal.IdJoin;
import dev.profiledrollout.trace.internal.IndexMergeSort;
import dev.profiledrollout.trace.internal.IndexSlots;
import dev.profiledrollout.trace.internal.RawEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apiguardian.api.API;

/**
 * The roofline half of the Kineto reader's accumulator ({@code trace.reading.KinetoAccumulator}): groups calls of {@link RooflineModel#covers covered} ops by name
 * and recorded arguments, and, while the reader's timeline sweep ({@code trace.reading.TimelineSweep}) replays the GPU events in start order, adds each event to
 * the busy time of every covered call around its launch.
 *
 * <p>Attribution follows TraceLens' call tree (AMD-AGI/TraceLens {@code TraceLens/Trace2Tree/trace_to_tree.py}:
 * {@code build_host_call_stack_tree}, {@code add_gpu_ops_to_tree}; {@code TraceLens/TreePerf/tree_perf.py}
 * {@code compute_perf_metrics}): a GPU event belongs to the runtime call with its {@code correlation}, and that
 * call to each {@code cpu_op} on the same thread whose {@code [ts, ts + dur)} contains the runtime call's
 * {@code ts}; an op's kernel time is the busy time of the GPU events of its subtree. {@code aten::linear} and
 * {@code aten::matmul} calls around another covered call are left out, so their kernels are not counted twice.
 *
 * <p>Memory: per distinct argument set one small object; per covered call six longs; per runtime call with a
 * correlation one map entry (about 48 bytes).
 */
@API(status = INTERNAL, since = "0.2")
public final class RooflineAccumulator {

    private static final class Group {
        final String name;
        final String dims;
        final String types;
        final String strides;
        final String concrete;
        long calls;

        Group(String name, String dims, String types, String strides, String concrete) {
            this.name = name;
            this.dims = dims;
            this.types = types;
            this.strides = strides;
            this.concrete = concrete;
        }

        boolean is(String name, String dims, String types, String strides, String concrete) {
            return same(this.name, name) && same(this.dims, dims) && same(this.types, types)
                    && same(this.strides, strides) && same(this.concrete, concrete);
        }

        /** The scanner hands out one String per recent distinct shape, so this is mostly ==. */
        private static boolean same(String a, String b) {
            return a == b || a.equals(b);
        }
    }

    /** Groups by (name, dims, types, strides, concrete), looked up with the event's own strings: no key per op. */
    private final IndexSlots groupSlots = new IndexSlots();

    private final List<Group> groups = new ArrayList<>();
    private final IdJoin launches = new IdJoin(); // correlation → (tid, ts)
    private int calls;
    // the call columns come from, and go back to, the thread's ArrayPool (release())
    private int[] callGroup = ArrayPool.ints(64);
    private long[] callTid = ArrayPool.longs(64);
    private long[] callStart = ArrayPool.longs(64);
    private long[] callEnd = ArrayPool.longs(64);
    private long[] callBusy;
    private long[] callLastEnd;
    private boolean[] callExcluded;
    // calls sorted by (tid, start, longer first), with the running max of ends within each tid
    private int[] sorted;
    private long[] sortedMaxEnd;

    /** A {@code cpu_op} event. */
    @API(status = INTERNAL, since = "0.2")
    public void cpuOp(String name, RawEvent e) {
        if (e.inputDims == null || e.tid == RawEvent.NONE || !dev.profiledrollout.trace.internal.RooflineOps.covers(name)) {
            return;
        }
        String types = e.inputTypes == null ? "" : e.inputTypes;
        String strides = e.inputStrides == null ? "" : e.inputStrides;
        String concrete = e.concreteInputs == null ? "" : e.concreteInputs;
        int g = group(name, e.inputDims, types, strides, concrete);
        if (calls == callGroup.length) {
            callGroup = ArrayPool.grow(callGroup, calls, calls + 1);
            callTid = ArrayPool.grow(callTid, calls, calls + 1);
            callStart = ArrayPool.grow(callStart, calls, calls + 1);
            callEnd = ArrayPool.grow(callEnd, calls, calls + 1);
        }
        callGroup[calls] = g;
        callTid[calls] = e.tid;
        callStart[calls] = e.tsNs;
        callEnd[calls] = e.tsNs + Math.max(0, e.durNs);
        calls++;
    }

    /** The index of the group of these fields, added when new. */
    private int group(String name, String dims, String types, String strides, String concrete) {
        int hash = (((name.hashCode() * 31 + dims.hashCode()) * 31 + types.hashCode()) * 31 + strides.hashCode()) * 31
                + concrete.hashCode();
        for (int slot = groupSlots.first(hash); ; slot = groupSlots.next(slot)) {
            int g = groupSlots.row(slot);
            if (g < 0) {
                g = groups.size();
                groups.add(new Group(name, dims, types, strides, concrete));
                groupSlots.add(slot, g, hash);
                return g;
            }
            if (groupSlots.hash(g) == hash && groups.get(g).is(name, dims, types, strides, concrete)) {
                return g;
            }
        }
    }

    /** Counts each group's calls (those not excluded) and returns the busy times of its timed calls, per group. */
    private double[][] busyTimes() {
        groups.forEach(group -> group.calls = 0);
        int[] timed = new int[groups.size()];
        for (int c = 0; c < calls; c++) {
            if (!callExcluded[c]) {
                groups.get(callGroup[c]).calls++;
                if (callBusy[c] > 0) {
                    timed[callGroup[c]]++;
                }
            }
        }
        double[][] times = new double[groups.size()][];
        for (int g = 0; g < times.length; g++) {
            times[g] = new double[timed[g]];
        }
        int[] fill = new int[groups.size()];
        for (int c = 0; c < calls; c++) {
            if (callBusy[c] > 0 && !callExcluded[c]) {
                times[callGroup[c]][fill[callGroup[c]]++] = callBusy[c];
            }
        }
        return times;
    }

    /** The roofline row of a group with these busy times (ns), or null when it has no calls or no model. */
    private static OperatorRoofline row(Group group, double[] ns) {
        if (group.calls == 0) {
            return null;
        }
        RooflineModel.Work work = RooflineModel.work(group.name, group.dims, group.types, group.concrete);
        if (work == null) {
            return null;
        }
        Arrays.sort(ns);
        List<Long> perCall = new ArrayList<>(ns.length);
        for (double v : ns) {
            perCall.add((long) v);
        }
        double[] tflops = new double[ns.length];
        double[] tbps = new double[ns.length];
        for (int i = 0; i < ns.length; i++) {
            tflops[i] = work.flops() / ns[i] / 1e3; // FLOP/ns = 10⁹ FLOP/s
            tbps[i] = work.bytes() / ns[i] / 1e3;
        }
        return new OperatorRoofline(group.name, group.dims, group.types, group.strides, group.concrete,
                work.precision(), work.flops(), work.bytes(), group.calls, ns.length,
                OperatorRoofline.Distribution.of(ns), OperatorRoofline.Distribution.of(tflops),
                Double.isNaN(work.bytes()) ? OperatorRoofline.Distribution.NONE
                        : OperatorRoofline.Distribution.of(tbps), perCall);
    }

    /**
     * Gives the launch join's memory ({@link IdJoin#release()}) and the call columns ({@link ArrayPool}) back for the
     * next trace read on this thread; after {@link #results()}, and nothing may be called afterwards. A second call
     * does nothing.
     */
    @API(status = INTERNAL, since = "0.2")
    public void release() {
        if (callGroup == null) {
            return;
        }
        launches.release();
        for (long[] column : new long[][] {callTid, callStart, callEnd, callBusy, callLastEnd, sortedMaxEnd}) {
            if (column != null) {
                ArrayPool.give(column);
            }
        }
        ArrayPool.give(callGroup);
        if (sorted != null) {
            ArrayPool.give(sorted);
        }
        callGroup = null;
        callTid = null;
        callStart = null;
        callEnd = null;
        callBusy = null;
        callLastEnd = null;
        sorted = null;
        sortedMaxEnd = null;
    }

    /** A {@code cuda_runtime} / {@code cuda_driver} event with a correlation id. */
    @API(status = INTERNAL, since = "0.2")
    public void runtime(RawEvent e) {
        if (e.tid != RawEvent.NONE) {
            launches.putIfAbsent(e.correlation, e.tid, e.tsNs);
        }
    }

    private void prepare() {
        callBusy = ArrayPool.zeroedLongs(calls);
        callLastEnd = ArrayPool.longs(calls);
        Arrays.fill(callLastEnd, 0, calls, Long.MIN_VALUE);
        callExcluded = new boolean[calls];
        sorted = IndexMergeSort.sort(calls, this::before); // equal calls keep their arrival order
        sortedMaxEnd = ArrayPool.longs(calls);
        for (int i = 0; i < calls; i++) {
            int c = sorted[i];
            boolean sameTid = i > 0 && callTid[sorted[i - 1]] == callTid[c];
            sortedMaxEnd[i] = sameTid ? Math.max(sortedMaxEnd[i - 1], callEnd[c]) : callEnd[c];
            if (sameTid) {
                int prev = sorted[i - 1];
                String outer = groups.get(callGroup[prev]).name;
                if (callStart[c] < callEnd[prev] && (outer.equals("aten::linear") || outer.equals("aten::matmul"))) {
                    callExcluded[prev] = true;
                }
            }
        }
    }

    /** Whether call {@code a} sorts strictly before call {@code b}: by tid, then start, then the later end first. */
    private boolean before(int a, int b) {
        if (callTid[a] != callTid[b]) {
            return callTid[a] < callTid[b];
        }
        if (callStart[a] != callStart[b]) {
            return callStart[a] < callStart[b];
        }
        return callEnd[a] > callEnd[b];
    }

    /** Readies {@link #gpuEvent}'s lookups before the sweep, so its per-event code has no first-event branch. */
    @API(status = INTERNAL, since = "0.2")
    public void beforeSweep() {
        launches.seal();
        if (sorted == null) {
            prepare();
        }
    }

    /** A GPU event, in start order: adds the part not yet covered to the busy time of each call around its launch. */
    @API(status = INTERNAL, since = "0.2")
    public void gpuEvent(long correlation, long start, long end) {
        if (calls == 0 || correlation == RawEvent.NONE) {
            return;
        }
        int slot = launches.find(correlation);
        if (slot < 0) {
            return;
        }
        if (sorted == null) {
            prepare();
        }
        long tid = launches.a(slot);
        long at = launches.b(slot);
        // last call on this thread starting at or before the launch
        int lo = 0;
        int hi = calls - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = sorted[mid];
            int cmp = callTid[c] != tid ? Long.compare(callTid[c], tid) : Long.compare(callStart[c], at);
            if (cmp <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        for (int i = found; i >= 0 && callTid[sorted[i]] == tid && sortedMaxEnd[i] > at; i--) {
            int c = sorted[i];
            if (callEnd[c] > at) {
                long last = callLastEnd[c];
                long from = Math.max(start, last);
                if (end > from) {
                    callBusy[c] += end - from;
                }
                callLastEnd[c] = Math.max(last, end);
            }
        }
    }

    /** The groups with their work and per-call figures, most kernel time first. */
    @API(status = INTERNAL, since = "0.2")
    public List<OperatorRoofline> results() {
        if (sorted == null) {
            prepare();
        }
        // Each step is a method of its own: this runs once per trace, and with its loops inline the JIT compiled the
        // whole of it on stack (OSR) again for each loop that became hot, at about a tenth of a second per compile.
        double[][] times = busyTimes();
        List<OperatorRoofline> out = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            OperatorRoofline row = row(groups.get(g), times[g]);
            if (row != null) {
                out.add(row);
            }
        }
        out.sort(OperatorRoofline.BY_KERNEL_TIME);
        return out;
    }
}
