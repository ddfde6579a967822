#!/usr/bin/env python3
"""Per-round ratios from a bench/run samples file.

bench/run reports ratios of medians. On a shared VM whose speed changes within
a run, the ratio of two commands timed in the same round (minutes apart at
most) shows how far one run's figure can move. This prints, for every export,
each round's `analyze ÷ igzip -dc`, `built-in-inflate build ÷ gzip -dc` and
`zlib-only build ÷ gzip -dc` (and, when timed, the split export's `analyze ÷
igzip -dc` and `rapidgzip ÷ igzip -dc`) and `DuckDB ÷ analyze`, their
minimum, median and maximum, and how far the reference itself moved (its
slowest round ÷ its fastest).

usage: bench/rounds.py SAMPLES.tsv   (columns: size, command, round, wall_ns, max_rss_kb)
"""
import csv
import statistics
import sys

PAIRS = [("analyze", "igzip", "analyze ÷ igzip -dc"),
         ("analyze_builtin", "gzip", "built-in-inflate build ÷ gzip -dc"),
         ("analyze_zlib", "gzip", "zlib-only build ÷ gzip -dc"),
         ("analyze_split", "igzip", "analyze, split ÷ igzip -dc"),
         ("rapidgzip", "igzip", "rapidgzip ÷ igzip -dc"),
         ("duckdb", "analyze", "DuckDB ÷ analyze")]


def load(path):
    """{size: {command: {round: seconds}}}, sizes in file order."""
    data = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            data.setdefault(row["size"], {}).setdefault(row["command"], {})[row["round"]] = int(row["wall_ns"]) / 1e9
    return data


def report(data):
    lines = []
    for size, commands in data.items():
        lines.append(f"{size}:")
        for numerator, reference, name in PAIRS:
            if numerator not in commands or reference not in commands:
                continue
            top, bottom = commands[numerator], commands[reference]
            rounds = sorted(set(top) & set(bottom), key=int)
            if not rounds:
                continue
            ratios = [top[r] / bottom[r] for r in rounds]
            reference_times = [bottom[r] for r in rounds]
            lines.append(
                f"  {name:28} rounds {' '.join(f'{x:.2f}' for x in ratios)}"
                f"  min {min(ratios):.2f} median {statistics.median(ratios):.2f} max {max(ratios):.2f}"
                f"  ({reference} slowest ÷ fastest {max(reference_times) / min(reference_times):.2f})")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    print(report(load(sys.argv[1])))
