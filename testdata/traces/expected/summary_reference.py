#!/usr/bin/env python3
"""Writes the *.summary.json reference of one Kineto JSON trace (definitions in testdata/traces/README.md), with the
Python standard library only, independently of the project's reader: per-kernel count and total ns, the ten largest
kernels, and per device busy (union of GPU event intervals) and span. Times are converted from the µs decimal text
to integer ns exactly (Decimal), not through a double.

Usage, from testdata/traces: python3 expected/summary_reference.py TRACE > expected/NAME.summary.json
"""
import gzip, json, sys
from decimal import Decimal

GPU = {"kernel", "gpu_memcpy", "gpu_memset"}


def ns(value):
    return int((Decimal(str(value)) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal, parse_int=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    kernels, intervals, memory = {}, {}, 0
    for e in events:
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") != "X" or cat not in GPU or "ts" not in e or "dur" not in e:
            continue
        start, dur = ns(e["ts"]), ns(e["dur"])
        intervals.setdefault(str(e.get("pid")), []).append((start, start + max(0, dur)))
        if cat == "kernel":
            k = kernels.setdefault(e.get("name", ""), [0, 0])
            k[0] += 1
            k[1] += dur
        else:
            memory += 1
    devices = {}
    for pid, spans in intervals.items():
        spans.sort()
        busy, end = 0, None
        for s, t in spans:
            if end is None or s > end:
                busy += t - s
                end = t
            elif t > end:
                busy += t - end
                end = t
        devices[pid] = {"busy_ns": busy, "span_ns": max(t for _, t in spans) - spans[0][0]}
    top = sorted(kernels.items(), key=lambda kv: (-kv[1][1], kv[0]))[:10]
    print(json.dumps({
        "file": path.rsplit("/", 1)[-1],
        "kernel_events": sum(k[0] for k in kernels.values()),
        "memory_events": memory,
        "distinct_kernels": len(kernels),
        "kernel_total_ns": sum(k[1] for k in kernels.values()),
        "devices": devices,
        "top_kernels": [{"name": n, "count": c, "total_ns": t} for n, (c, t) in top],
    }, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1])
