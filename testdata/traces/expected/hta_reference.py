#!/usr/bin/env python3
"""HTA's temporal breakdown and comm/compute overlap per trace file, from HTA's definitions (stdlib only).

Independent of the project's reader. Definitions from facebookresearch/HolisticTraceAnalysis @ f4d0062:
hta/common/trace_parser.py (_compress_df, round_down_time_stamps), hta/common/trace.py
(_filter_irrelevant_gpu_kernels), hta/common/trace_filter.py (GPUKernelFilter), hta/utils/utils.py
(get_kernel_type, merge_kernel_intervals), hta/analyzers/breakdown_analysis.py (get_temporal_breakdown),
hta/analyzers/communication_analysis.py (get_comm_comp_overlap). Prints µs, as HTA does.

Usage (from testdata/traces): python3 expected/hta_reference.py > expected/hta_breakdown.json
Every Kineto JSON trace under testdata/traces is included; the numbers are integers in µs.
"""
import gzip
import json
import math
import re
import sys

COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTE = re.compile(r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|"
                         r"(cuda.*LaunchKernel)|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|"
                         r"(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")
STEP = re.compile(r"^ProfilerStep#(\d+)")


def kernel_type(name):
    if COMM.match(name):
        return "COMMUNICATION"
    if MEMORY.match(name):
        return "MEMORY"
    return "OTHER" if NOT_COMPUTE.match(name) else "COMPUTATION"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    rows = []
    for e in events:
        # _compress_df: rows without dur or cat, and cat "Trace", are dropped
        if e.get("dur") is None or e.get("cat") is None or e["cat"] == "Trace":
            continue
        args = e.get("args") or {}
        rows.append({"name": e.get("name", ""), "ts": e["ts"], "dur": e["dur"],
                     "stream": args.get("stream", -1), "correlation": args.get("correlation", -1)})
    # round_down_time_stamps: only when the ts column is float64 (any non-integer ts in the file)
    if any(isinstance(r["ts"], float) for r in rows):
        for r in rows:
            end = float(r["ts"]) + float(r["dur"])
            r["ts"] = math.ceil(float(r["ts"]))
            r["end"] = math.floor(end)
    else:
        for r in rows:
            r["end"] = r["ts"] + r["dur"]
    return rows


def is_gpu(r):
    # GPUKernelFilter; "Event Sync" / "Context Sync" sit on stream -1 and drop out of the breakdown anyway
    return (r["stream"] >= 0 and r["correlation"] >= 0) or r["name"] in ("Event Sync", "Context Sync")


def filter_last_step(rows):
    steps = {r["name"] for r in rows if STEP.match(r["name"])}
    if len(steps) < 2:
        return rows
    cpu = [r for r in rows if not is_gpu(r)]
    gpu = [r for r in rows if is_gpu(r)]
    last = max(r["ts"] for r in cpu if r["name"] in steps)
    cpu = [r for r in cpu if r["ts"] < last]
    kept = {r["correlation"] for r in cpu}
    return [r for r in gpu if r["correlation"] in kept] + cpu


def merge(rows):
    # merge_kernel_intervals; ties on ts are taken in end order
    merged = []
    for r in sorted(rows, key=lambda r: (r["ts"], r["end"])):
        if merged and not r["ts"] > merged[-1][2]:
            merged[-1][1] = max(merged[-1][1], r["end"])
            merged[-1][2] = max(merged[-1][2], r["end"])
        else:
            running = max(merged[-1][2], r["end"]) if merged else r["end"]
            merged.append([r["ts"], r["end"], running])
    return [(s, e) for s, e, _ in merged]


def overlap(a, b):
    total = 0
    i = j = 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def breakdown(path):
    gpu = [r for r in filter_last_step(load(path)) if r["stream"] != -1]
    merged = merge(gpu)
    kernel_time = merged[-1][1] - merged[0][0]
    idle = kernel_time - sum(e - s for s, e in merged)
    comp = merge([r for r in gpu if kernel_type(r["name"]) == "COMPUTATION"])
    comm = merge([r for r in gpu if kernel_type(r["name"]) == "COMMUNICATION"])
    compute = sum(e - s for s, e in comp)
    comm_total = sum(e - s for s, e in comm)
    return {"gpu_events": len(gpu), "kernel_time_us": kernel_time, "idle_time_us": idle,
            "compute_time_us": compute, "non_compute_time_us": kernel_time - compute - idle,
            "communication_time_us": comm_total, "overlap_us": overlap(comm, comp)}


def ns(value):
    # µs decimal text to integer ns, exactly (json parse_float=Decimal), half away from zero as the reader does
    from decimal import Decimal, ROUND_HALF_UP
    return int((Decimal(value) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def stream_idle(path, delay_ns=30_000):
    """HTA's idle-time categories per (pid, stream), but on the exact ns times and without dropping a step.

    _analyze_idle_time_for_stream: GPU events of the stream (kernel, memcpy, memset) sorted by ts; gap = ts - end of
    the previous one; host wait when the correlated runtime call started after that end, else kernel wait when the
    gap is below consecutive_kernel_delay (30, compared with µs, so 30 µs), else other.
    """
    from decimal import Decimal
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    events = [e for e in events if e.get("ph") == "X" and e.get("dur") is not None]
    launch = {}
    for e in events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            launch.setdefault(args["correlation"], ns(e["ts"]))
    lanes = {}
    for e in events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"):
            ts = ns(e["ts"])
            end = max(ts, ts + ns(e["dur"]))
            lanes.setdefault((str(e.get("pid", "")), args.get("stream", -1)), []).append(
                (ts, end, launch.get(args.get("correlation"))))
    result = []
    for (pid, stream), rows in sorted(lanes.items()):
        rows.sort(key=lambda r: r[0])  # stable: file order among equal starts
        host = kernel = other = 0
        for prev, cur in zip(rows, rows[1:]):
            gap = cur[0] - prev[1]
            if cur[2] is not None and cur[2] > prev[1]:
                host += gap
            elif gap < delay_ns:
                kernel += gap
            else:
                other += gap
        result.append({"device": pid, "stream": stream, "events": len(rows), "host_wait_ns": host,
                       "kernel_wait_ns": kernel, "other_ns": other})
    return result


LAUNCH_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
                "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"}


def stream_queues(path):
    """HTA's queue length per (pid, stream) (trace_counters.py), on exact ns times, no step dropped.

    +1 at each launch call (get_runtime_launch_events_mask) with a correlated GPU event, -1 when that event starts;
    points sorted by time, a rise before a fall at the same time; statistics over the points, nearest rank.
    """
    from decimal import Decimal
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    events = [e for e in events if e.get("ph") == "X" and e.get("dur") is not None]
    launch = {}
    for e in events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "cuda_driver") and "correlation" in args \
                and e.get("name") in LAUNCH_CALLS:
            launch.setdefault(args["correlation"], ns(e["ts"]))
    lanes = {}
    for e in events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset") \
                and args.get("correlation") in launch:
            points = lanes.setdefault((str(e.get("pid", "")), args.get("stream", -1)), [])
            points.append((launch[args["correlation"]], 0, +1))
            points.append((ns(e["ts"]), 1, -1))
    result = []
    for (pid, stream), points in sorted(lanes.items()):
        values = []
        length = 0
        for _, _, step in sorted(points):
            length += step
            values.append(length)
        ordered = sorted(values)
        rank = lambda p: ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]
        result.append({"device": pid, "stream": stream, "points": len(values), "mean": sum(values) / len(values),
                       "p50": rank(50), "p99": rank(99), "max": max(values)})
    return result


if __name__ == "__main__":
    import pathlib
    traces = sorted(str(p) for p in pathlib.Path(".").rglob("*.json*") if not str(p).startswith("expected/"))
    result = {p: {**{k: int(v) for k, v in breakdown(p).items()}, "stream_idle": stream_idle(p),
                  "stream_queues": stream_queues(p)} for p in traces}
    print(json.dumps(result, indent=2))
