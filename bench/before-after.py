#!/usr/bin/env python3
"""Medians of bench/before-after.sh's reports, as the Markdown table of
docs/benchmarks.md ("Issue 13: before and after").

    python3 bench/before-after.py OUT

For each part, scenario and concurrency: the median reservations/s (lines/s
for orders) and p99 of each build over the rounds, the median of the
per-round ratios after/before (each measured side by side), the after
build's median batch, and the median of its per-round ratios to each
baseline. The last line says whether every row was safe: nothing oversold,
the books' check and verify clean.
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict


def rows(out, part, build):
    by_key = defaultdict(list)  # (scenario, concurrency, implementation) -> [row per round]
    for path in sorted(glob.glob(os.path.join(out, f"{part}-{build}-*.json"))):
        with open(path) as f:
            report = json.load(f)
        for row in report["rows"]:
            by_key[(row["scenario"], row["concurrency"], row["implementation"])].append(row)
    return by_key


def throughput(row):
    return row["lines_per_second"] if row["scenario"] == "orders" else row["reservations_per_second"]


def median(values):
    return statistics.median(values) if values else float("nan")


def main(out):
    safe = True
    for part in ("pg", "sqlite", "http"):
        before, after = rows(out, part, "before"), rows(out, part, "after")
        if not after:
            continue
        stockd = "stockd-http" if part == "http" else "stockd-engine"
        print(f"\n### {part}\n")
        print("| scenario | callers | before /s | after /s | after ÷ before | before p99 ms | after p99 ms | after batch | × baselines (after) |")
        print("|---|--:|--:|--:|--:|--:|--:|--:|---|")
        for (scenario, callers, impl), arows in sorted(after.items()):
            for r in arows:
                if r.get("skipped") or r["oversold"] != 0 or not r["check_clean"] or (
                        not r["baseline"] and r.get("verify") and not r.get("verify_clean")):
                    safe = False
            if impl != stockd:
                continue
            brows = before.get((scenario, callers, impl), [])
            for r in brows:
                if r["oversold"] != 0 or not r["check_clean"]:
                    safe = False
            ratios = [throughput(a) / throughput(b) for a, b in zip(arows, brows) if throughput(b) > 0]
            batch = ""
            if arows[0].get("batches"):
                batch = f"{median([r['batch_size_mean'] for r in arows]):.0f} × {median([r['batch_ms_mean'] for r in arows]):.1f} ms"
            names = sorted({k for r in arows for k in (r.get("ratios") or {})})
            vs = ", ".join(f"{n} {median([r['ratios'][n] for r in arows if n in (r.get('ratios') or {})]):.1f}×" for n in names)
            print(f"| {scenario} | {callers} | {median([throughput(r) for r in brows]):.0f} | "
                  f"{median([throughput(r) for r in arows]):.0f} | {median(ratios):.2f} | "
                  f"{median([r['latency_p99_ms'] for r in brows]):.1f} | {median([r['latency_p99_ms'] for r in arows]):.1f} | "
                  f"{batch} | {vs} |")
        base_names = sorted({impl for (_, _, impl) in after if impl != stockd})
        for name in base_names:
            line = ", ".join(f"{s}@{c} {median([throughput(r) for r in after[(s, c, name)]]):.0f}"
                             for (s, c, n) in sorted(after) if n == name)
            print(f"\n{name} (after build's run, median /s): {line}")
    print(f"\nall rows safe (oversold 0, check and verify clean): {safe}")


if __name__ == "__main__":
    main(sys.argv[1])
