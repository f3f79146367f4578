#!/usr/bin/env python3
"""Gathers what scripts/gpu-check.sh wrote into one JSON document and one markdown report.

    python3 scripts/gpu_report.py RESULTS_DIR

Reads RESULTS_DIR/checks.jsonl (correctness checks), RESULTS_DIR/rows/* (performance runs: Conveyor's
JSON documents and the peers' outputs) and RESULTS_DIR/ctest-junit.xml; writes gpu-check.json and
gpu-check.md beside them. Every ratio is Conveyor / peer (above 1: Conveyor is faster)."""
import json
import statistics
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def results(path):
    doc = load(path)
    return doc.get("results", []) if isinstance(doc, dict) else []


def ctest_summary(out):
    try:
        suite = ET.parse(out / "ctest-junit.xml").getroot()
    except (OSError, ET.ParseError):
        return None
    cases = suite.iter("testcase")
    summary = {"tests": 0, "failed": 0, "skipped": 0, "cuda_ran": 0, "cuda_skipped": 0}
    for c in cases:
        name = c.get("name", "")
        failed = c.find("failure") is not None or c.get("status") == "fail"
        skipped = c.find("skipped") is not None or c.get("status") in ("notrun", "disabled")
        summary["tests"] += 1
        summary["failed"] += failed
        summary["skipped"] += skipped
        if "cuda" in name.lower():
            summary["cuda_skipped" if skipped else "cuda_ran"] += 1
    return summary


def babelstream(path):
    """BabelStream --csv: function,num_times,n_elements,sizeof,max_mbytes_per_sec,..."""
    rows = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return rows
    for line in lines:
        parts = line.split(",")
        if len(parts) >= 5 and parts[0] in ("Copy", "Mul", "Add", "Triad", "Dot"):
            name = {"Mul": "scale"}.get(parts[0], parts[0].lower())
            rows[name] = float(parts[4]) / 1000.0  # MB/s -> GB/s
    return rows


def stream_rows(out, md, doc):
    md.append("## STREAM on the GPU (GB/s, best of 20; peer: BabelStream, same array length)\n")
    md.append("| arrays | kernel | standard | tuned | BabelStream | best / peer | % of peak |")
    md.append("|---|---|---|---|---|---|---|")
    for f in sorted((out / "rows").glob("stream-*.json")):
        size = f.stem.split("-", 1)[1]
        peer = babelstream(out / "rows" / f"babelstream-{size}.txt")
        by = {}
        for r in results(f):
            by.setdefault(r["kernel"], {})[r["variant"]] = r
        for k in ("copy", "scale", "add", "triad", "dot"):
            if k not in by:
                continue
            std, tun = by[k].get("standard", {}), by[k].get("tuned", {})
            best = max(std.get("best_gbs", 0), tun.get("best_gbs", 0))
            pct = max(std.get("percent_of_peak") or 0, tun.get("percent_of_peak") or 0)
            p = peer.get(k)
            ratio = best / p if p else None
            doc["stream"].append({"arrays": size, "kernel": k, "standard_gbs": std.get("best_gbs"),
                                  "tuned_gbs": tun.get("best_gbs"), "peer_gbs": p,
                                  "ratio": ratio, "percent_of_peak": pct})
            md.append(f"| {size} | {k} | {std.get('best_gbs', 0):.0f} | {tun.get('best_gbs', 0):.0f} | "
                      f"{p or 0:.0f} | {ratio or 0:.3f} | {pct:.1f} |")
    md.append("")


def link_rows(out, md, doc):
    probe = results(out / "rows" / "probe.json")
    h2d = [r["best_gbs"] for r in probe if r.get("kind") == "bandwidth" and r.get("model") == "pinned"
           and r.get("direction") == "h2d" and str(r.get("device", "")).startswith("cuda")]
    link = max(h2d) if h2d else None
    doc["pinned_h2d_gbs"] = link
    md.append("## Copy-engine pipeline (GB/s, STREAM-counted) against the pinned link\n")
    md.append(f"Pinned host-to-device copy, best over sizes (`conveyor probe`): {link or 0:.1f} GB/s.\n")
    md.append("| kernel | pipelined GB/s | bytes host-to-device per counted byte | link use |")
    md.append("|---|---|---|---|")
    h2d_share = {"scale": 0.5, "triad": 2 / 3, "dot": 1.0}  # input bytes over counted bytes
    for r in results(out / "rows" / "pipeline.json"):
        if r.get("pipeline", "none") == "none":
            continue
        share = h2d_share.get(r["kernel"])
        use = r["best_gbs"] * share / link if link and share else None
        doc["pipeline"].append({"kernel": r["kernel"], "gbs": r["best_gbs"], "link_use": use})
        md.append(f"| {r['kernel']} | {r['best_gbs']:.1f} | {share or 0:.2f} | "
                  f"{(use or 0) * 100:.0f} % |")
    md.append("")


def cholesky_row(path):
    rows = results(path)
    return rows[0] if rows else None


def gflops(r):
    t = r.get("median_time_s") or r["time_s"]
    return r["n"] ** 3 / 3 / t / 1e9


def cholesky_rows(out, md, doc):
    rows = out / "rows"
    md.append("## GPU Cholesky (every task on cuda:0) against cuSOLVER potrf, host to host\n")
    md.append("GFLOP/s from the median of 3 (n³/3 flops); cuSOLVER: best of 3 after one untimed call.\n")
    md.append("| n | precision | tile | Conveyor GFLOP/s | cuSOLVER host-to-host | ratio | cuSOLVER potrf alone |")
    md.append("|---|---|---|---|---|---|---|")
    for f in sorted(rows.glob("cusolver-*.json"), key=lambda p: (int(p.stem.split("-")[1]), p.stem)):
        _, n, p = f.stem.split("-")
        peer = load(f)
        if not peer:
            continue
        for g in sorted(rows.glob(f"gpu-{n}-{p}-*.json")):
            r = cholesky_row(g)
            if not r:
                continue
            tag = g.stem.split("-")[3]
            ours = gflops(r)
            ratio = ours / peer["gflops"]
            doc["cholesky"].append({"n": int(n), "precision": p, "tile": r["block"],
                                    "default_tile": tag == "default", "gflops": ours,
                                    "peer_gflops": peer["gflops"], "ratio": ratio,
                                    "peer_device_gflops": peer["device_gflops"]})
            md.append(f"| {n} | {p} | {r['block']}{' (default)' if tag == 'default' else ''} | "
                      f"{ours:.0f} | {peer['gflops']:.0f} | {ratio:.3f} | {peer['device_gflops']:.0f} |")
    md.append("")

    md.append("## Cores + GPU (`--devices all`, model scheduler) against the GPU alone, double\n")
    md.append("| n | all: median s | cuda:0: median s | ratio (cuda time / all time) | GPU tasks in `all` |")
    md.append("|---|---|---|---|---|")
    sizes = sorted({int(f.stem.split("-")[1]) for f in rows.glob("all-*.json")})
    for n in sizes:
        alls = [r for r in (cholesky_row(f) for f in rows.glob(f"all-{n}-*.json")) if r]
        cudas = [r for r in (cholesky_row(f) for f in rows.glob(f"cuda-{n}-*.json")) if r]
        if not alls or not cudas:
            continue
        ta = statistics.median(r["time_s"] for r in alls)
        tc = statistics.median(r["time_s"] for r in cudas)
        gpu_tasks = [sum(w["tasks"] for w in r.get("workers", []) if "cuda" in w["name"]) for r in alls]
        doc["hybrid"].append({"n": n, "all_s": ta, "cuda_s": tc, "ratio": tc / ta,
                              "gpu_tasks": gpu_tasks})
        md.append(f"| {n} | {ta:.4f} | {tc:.4f} | {tc / ta:.3f} | {gpu_tasks} |")
    md.append("")

    md.append("## Out of core, overhead, the seed's table 3\n")
    for f in sorted(rows.glob("ooc-*.json")):
        n = f.stem.split("-")[1]
        r, base = cholesky_row(f), cholesky_row(rows / f"incore-{n}.json")
        if r and base:
            share = gflops(r) / gflops(base)
            doc["out_of_core"] = {"n": int(n), "gflops": gflops(r), "in_core_gflops": gflops(base),
                                  "share": share, "evictions": r["evictions"],
                                  "write_backs": r["write_backs"], "h2d_bytes": r["h2d_bytes"],
                                  "residual": r.get("residual")}
            md.append(f"- n = {n} double, `--device-memory 2GiB`: {gflops(r):.0f} GFLOP/s against "
                      f"{gflops(base):.0f} in core ({share * 100:.0f} %); {r['evictions']} evictions, "
                      f"{r['write_backs']} write-backs, residual {r.get('residual')}.")
    r = cholesky_row(rows / "overhead.json")
    if r:
        per_task = (r.get("median_time_s") or r["time_s"]) / r["tasks"] * 1e6
        doc["overhead_us_per_task"] = per_task
        md.append(f"- n = 4096, tile 128, GPU alone: {r['tasks']} tasks in "
                  f"{r.get('median_time_s') or r['time_s']:.4f} s, **{per_task:.1f} us per task** "
                  "(wall time over tasks: an upper bound on the per-task overhead).")
        probes = [w["round_trip_us"] for w in r.get("workers", []) if "round_trip_us" in w]
        if probes:
            doc["round_trip_us"] = probes[0]
            md.append(f"- the CUDA driver's measured round trip of a completion (an empty notify on "
                      f"the idle lane to the host's wake-up, median of 7): {probes[0]:.1f} us "
                      "(the H200 twin's complete_us, from the traces of 2026-11-27: 98.1 us, "
                      "the whole gap a dependent task sees).")
    for f in sorted(rows.glob("task-cost-*.json")):
        r = load(f)
        if r:
            doc.setdefault("task_cost", []).append(r)
            md.append(f"- tiny tasks, {r['width']} chain(s), {r['in_flight']} in flight, run-ahead "
                      f"{r['run_ahead']}: {r['us_per_task']:.1f} us a task (the driver's probe: "
                      f"{r.get('round_trip_us', -1):.1f} us).")
    t3 = results(rows / "table3.json")
    for r in t3:
        doc["table3"].append({k: r[k] for k in ("coherence", "h2d_copies", "d2h_copies",
                                                  "total_copies", "time_s", "n", "block")})
        md.append(f"- table 3, n = {r['n']} tile {r['block']}, gemm on the GPU, {r['coherence']}: "
                  f"{r['h2d_copies']} H2D + {r['d2h_copies']} D2H = {r['total_copies']} copies, "
                  f"{r['time_s']:.3f} s.")
    md.append("")


def qr_gflops(r):
    """4/3 n^3 over the median time (conveyor qr and qr_geqrf_cusolver both print it)."""
    return 4 / 3 * r["n"] ** 3 / (r.get("median_time_s") or r["time_s"]) / 1e9


def qr_stencil_rows(out, md, doc):
    rows = out / "rows"
    md.append("## QR on cuda:0 (cuSOLVER/cuBLAS tile kernels) against cuSOLVER geqrf, host to host\n")
    md.append("GFLOP/s from the medians of 3 on both sides (4/3 n³ flops); targets from issue 35.\n")
    md.append("| n | precision | tile | Conveyor GFLOP/s | cuSOLVER GFLOP/s | ratio | target |")
    md.append("|---|---|---|---|---|---|---|")
    for f in sorted(rows.glob("qr-cuda-*.json"), key=lambda p: (int(p.stem.split("-")[2]), p.stem)):
        n, p = f.stem.split("-")[2:]
        r, peer = cholesky_row(f), load(rows / f"qr-cusolver-{n}-{p}.json")
        if not r:
            continue
        ours = qr_gflops(r)
        theirs = qr_gflops(peer) if peer else None
        ratio = ours / theirs if theirs else None
        target = 0.8 if int(n) >= 16384 else 0.5
        doc["qr"].append({"n": int(n), "precision": p, "tile": r["block"], "gflops": ours,
                          "peer_gflops": theirs, "ratio": ratio, "target": target})
        md.append(f"| {n} | {p} | {r['block']} | {ours:.0f} | "
                  f"{f'{theirs:.0f}' if theirs else 'n/a'} | "
                  f"{f'{ratio:.3f}' if ratio else 'n/a'} | >= {target} |")
    for f in sorted(rows.glob("qr-all-*-d.json")):
        n = f.stem.split("-")[2]
        r, alone = cholesky_row(f), cholesky_row(rows / f"qr-cuda-{n}-d.json")
        if r and alone:
            ratio = qr_gflops(r) / qr_gflops(alone)
            doc["qr"].append({"n": int(n), "precision": "d", "devices": "all",
                              "gflops": qr_gflops(r), "cuda_gflops": qr_gflops(alone),
                              "ratio": ratio, "target": 1.0})
            md.append(f"\n`--devices all` at n = {n}, double: {qr_gflops(r):.0f} GFLOP/s against "
                      f"cuda:0 alone {qr_gflops(alone):.0f}: **{ratio:.3f}x** (target >= 1.0).")
    md.append("")

    md.append("## Stencil tile kernels against the plain CUDA loop (one tile, no runtime)\n")
    t = load(rows / "stencil-tile-kernel.json")
    if t:
        doc["stencil"].append(t)
        md.append(f"- tile {t['n']}², {t['sweeps']} sweeps: loop {t['loop_gbs']:.0f} GB/s, tile "
                  f"kernel {t['tile_gbs']:.0f} GB/s (**{t['tile_vs_loop']:.3f}x**, target >= 0.9), "
                  f"temporal block D = {t['depth']}: {t['deep_gbs']:.0f} GB/s per sweep "
                  f"({t['deep_vs_loop']:.3f}x); bit for bit: {t['check']}.")
    loop = load(rows / "stencil-loop-16384.json")
    if loop:
        doc["stencil"].append(loop)
        md.append(f"- plain loop, n = {loop['n']}, {loop['sweeps']} sweeps: in core {loop['gbs']:.0f} "
                  f"GB/s, host to host {loop['host_to_host_gbs']:.0f} GB/s "
                  f"({loop['host_to_host_s']:.3f} s).")
    md.append("")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gpu_report.py RESULTS_DIR")
    out = Path(sys.argv[1])
    checks = [json.loads(l) for l in (out / "checks.jsonl").read_text().splitlines() if l.strip()]
    gpu = (out / "gpu.txt").read_text().strip() if (out / "gpu.txt").exists() else "unknown"
    doc = {"gpu": gpu, "checks": checks, "ctest": ctest_summary(out), "stream": [], "pipeline": [],
           "cholesky": [], "hybrid": [], "table3": [], "qr": [], "stencil": []}
    md = [f"# gpu-check on {gpu}\n", "## Correctness\n", "| check | status | seconds |", "|---|---|---|"]
    md += [f"| {c['check']} | {c['status']} | {c['seconds']} |" for c in checks]
    if doc["ctest"]:
        s = doc["ctest"]
        md.append(f"\nctest: {s['tests']} tests, {s['failed']} failed, {s['skipped']} skipped; "
                  f"CUDA-named tests run: {s['cuda_ran']}, skipped: {s['cuda_skipped']}.")
    md.append("")
    stream_rows(out, md, doc)
    link_rows(out, md, doc)
    cholesky_rows(out, md, doc)
    qr_stencil_rows(out, md, doc)
    (out / "gpu-check.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / "gpu-check.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
