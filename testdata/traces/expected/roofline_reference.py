"""Independent reference for the roofline tests: TraceLens' GEMM FLOP/byte formulas and its kernel attribution
(kernel -> runtime call by correlation -> every cpu_op on that thread whose [ts, ts+dur) contains the call's ts),
written without the project's reader. Usage: python3 roofline_reference.py TRACE.json.gz > NAME.roofline.json
(an object, not an array, so that trace readers walking this directory skip it)"""
import collections
import gzip
import json
import statistics
import sys
from decimal import Decimal

BPE = {"double": 8, "long int": 8, "float": 4, "scalar": 4, "int": 4, "c10::half": 2, "c10::bfloat16": 2}
COVERED = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "aten::matmul"}


def ns(x):
    return int(Decimal(str(x)) * 1000)


def work(name, dims, types):
    bias = name in ("aten::addmm", "aten::baddbmm")
    if name == "aten::mm":
        (m, k), (_, n), b, t = dims[0], dims[1], 1, types[0]
    elif name == "aten::addmm":
        (m, k), (_, n), b, t = dims[1], dims[2], 1, types[1]
    elif name == "aten::bmm":
        (b, m, k), (_, _, n), t = dims[0], dims[1], types[0]
    else:
        return None
    bpe = BPE[t.lower()]
    flops = b * (2 * m * n * k + (m * n if bias else 0))
    nbytes = b * (m * k + k * n + m * n + (n if bias else 0)) * bpe
    return flops, nbytes


def main(path):
    doc = json.load(gzip.open(path) if path.endswith("gz") else open(path), parse_float=Decimal)
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    calls = []
    for e in events:
        a = e.get("args", {})
        if e.get("cat") == "cpu_op" and e["name"] in COVERED and "Input Dims" in a:
            key = (e["name"], json.dumps(a["Input Dims"]), json.dumps(a.get("Input type", [])))
            calls.append(dict(name=e["name"], key=key, dims=a["Input Dims"], types=a.get("Input type"),
                              tid=e["tid"], s=ns(e["ts"]), e=ns(e["ts"]) + ns(e["dur"]), k=[]))
    runtime = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            runtime.setdefault(e["args"]["correlation"], (e["tid"], ns(e["ts"])))
    by_tid = collections.defaultdict(list)
    for c in calls:
        by_tid[c["tid"]].append(c)
    for e in events:
        if str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset"):
            r = runtime.get(e.get("args", {}).get("correlation"))
            if r:
                for c in by_tid[r[0]]:
                    if c["s"] <= r[1] < c["e"]:
                        c["k"].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    groups, counts, first = collections.defaultdict(list), collections.Counter(), {}
    for c in calls:
        if c["name"] in ("aten::linear", "aten::matmul") and any(
                o is not c and c["s"] <= o["s"] < c["e"] for o in by_tid[c["tid"]]):
            continue
        counts[c["key"]] += 1
        first.setdefault(c["key"], c)
        busy, last = 0, None
        for s, end in sorted(c["k"]):
            start = s if last is None else max(s, last)
            busy += max(0, end - start)
            last = end if last is None else max(last, end)
        if busy > 0:
            groups[c["key"]].append(busy)
    out = []
    for key, n in counts.items():
        w = work(key[0], first[key]["dims"], first[key]["types"])
        if w is None:
            continue
        t = groups.get(key, [])
        out.append(dict(name=key[0], inputDims=key[1], calls=n, count=len(t), flops=w[0], bytes=w[1],
                        kernelNsMean=statistics.mean(t) if t else None,
                        kernelNsMedian=statistics.median(t) if t else None,
                        kernelNsMin=min(t) if t else None, kernelNsMax=max(t) if t else None))
    out.sort(key=lambda r: (r["name"], r["inputDims"]))
    json.dump({"file": path.rsplit("/", 1)[-1], "roofline": out}, sys.stdout, indent=1)


main(sys.argv[1])
