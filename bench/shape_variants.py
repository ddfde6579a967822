#!/usr/bin/env python3
"""Times `analyze` on the same events written in other shapes, to find the shapes
whose parsing costs much more than the generator's (a cliff an unseen exporter
could hit).

    bench/shape_variants.py EXPORT.ndjson.gz [--lines N] [--analyze PATH] [--runs R]

The first N lines of EXPORT (default 300 000) are rewritten as:

  orig      the lines as they are
  sorted    keys in sorted order, no spaces (one fixed key order, as most exporters)
  spaced    `", "` and `": "` between members
  offset    RFC 3339 timestamps in +09:00 instead of Z (the same instants)
  epochms   timestamps as epoch milliseconds (where the fraction has ≤ 3 digits)
  upper     device, profile and event ids in upper case
  context   a nested `context` object (~260 bytes: app, os, screen, tags) on every line
  escaped   an extra string of non-ASCII text written with \\u escapes on every line

Each is timed `--threads 1` from decompressed text in /dev/shm (the inflater is
left out: it is the same for every shape), `--runs` times, and the minimum CPU
time (user + system) is reported per line and against `orig`. The three event
CSVs and rejects.csv of every variant must equal `orig`'s (they describe the
same events; `upper` changes identities' bytes but not which events share them,
and event ids only order ties, so its CSVs are equal too); a difference is
reported and makes the script exit 1. Standard library only.
"""
import argparse
import datetime
import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

RFC3339_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z")
JST = datetime.timezone(datetime.timedelta(hours=9))
CONTEXT = {
    "app": {"build": "4812", "name": "Quiz Lab", "namespace": "com.example.quizlab"},
    "os": {"name": "iOS", "version": "17.6.1"},
    "screen": {"width": 1179, "height": 2556, "density": 3.0},
    "locale": "ja_JP",
    "tags": ["beta", "paid", None, True],
    "network": {"wifi": True, "carrier": "docomo"},
}
COMPACT = (",", ":")
COMPARED = ["installs.csv", "profile_switches.csv", "quiz_answers.csv", "rejects.csv"]


def split_timestamp(text):
    """(whole seconds as an aware datetime, fraction digits) of an RFC 3339 `...Z`
    timestamp, or None for any other form (left as it is)."""
    if not isinstance(text, str) or not RFC3339_Z.fullmatch(text):
        return None
    whole, _, fraction = text[:-1].partition(".")
    return datetime.datetime.fromisoformat(whole + "+00:00"), fraction


def variants(event):
    """The event in every shape, as (name, line) pairs."""
    yield "sorted", json.dumps(event, sort_keys=True, separators=COMPACT, ensure_ascii=False)
    yield "spaced", json.dumps(event, separators=(", ", ": "), ensure_ascii=False)
    stamp = split_timestamp(event.get("timestamp"))
    offset, epoch = dict(event), dict(event)
    if stamp:
        moment, fraction = stamp
        local = moment.astimezone(JST).strftime("%Y-%m-%dT%H:%M:%S")
        offset["timestamp"] = local + ("." + fraction if fraction else "") + "+09:00"
        if len(fraction) <= 3:
            epoch["timestamp"] = int(moment.timestamp()) * 1000 + int(fraction.ljust(3, "0") or 0)
    yield "offset", json.dumps(offset, separators=COMPACT, ensure_ascii=False)
    yield "epochms", json.dumps(epoch, separators=COMPACT, ensure_ascii=False)
    upper = dict(event)
    for key in ("device_id", "profile_id", "event_id"):
        if isinstance(upper.get(key), str):
            upper[key] = upper[key].upper()
    yield "upper", json.dumps(upper, separators=COMPACT, ensure_ascii=False)
    yield "context", json.dumps(dict(event, context=CONTEXT), separators=COMPACT, ensure_ascii=False)
    yield "escaped", json.dumps(dict(event, app_name="クイズ・ラボ café"), separators=COMPACT, ensure_ascii=True)


def write_variants(export, lines, directory):
    names = ["orig", "sorted", "spaced", "offset", "epochms", "upper", "context", "escaped"]
    files = {name: open(os.path.join(directory, name + ".ndjson"), "w", encoding="utf-8") for name in names}
    with gzip.open(export, "rt", encoding="utf-8") as source:
        for count, line in enumerate(source):
            if count == lines:
                break
            line = line.rstrip("\n")
            files["orig"].write(line + "\n")
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            for name, text in variants(event) if isinstance(event, dict) else ((n, line) for n in names[1:]):
                files[name].write(text + "\n")
    for handle in files.values():
        handle.close()
    return names


def cpu_seconds(analyze, path, out, runs):
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([analyze, path, "--out", out, "--quiet", "--threads", "1"], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export")
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--analyze", default=".build/release/analyze")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="shape-variants-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        names = write_variants(args.export, args.lines, work)
        failed = False
        baseline = None
        print(f"{args.lines} lines of {args.export}, --threads 1, minimum CPU of {args.runs} runs")
        print(f"{'shape':<9} {'MB':>7} {'CPU ms':>7} {'ns/line':>8} {'÷ orig':>7}  CSVs")
        for name in names:
            path = os.path.join(work, name + ".ndjson")
            out = os.path.join(work, "out-" + name)
            seconds = cpu_seconds(args.analyze, path, out, args.runs)
            baseline = baseline or seconds
            differ = [csv for csv in COMPARED
                      if open(os.path.join(out, csv), "rb").read()
                      != open(os.path.join(work, "out-orig", csv), "rb").read()]
            failed |= bool(differ)
            print(f"{name:<9} {os.path.getsize(path) / 1e6:7.1f} {seconds * 1000:7.0f} "
                  f"{seconds * 1e9 / args.lines:8.0f} {seconds / baseline:7.2f}  "
                  f"{'differ: ' + ', '.join(differ) if differ else 'equal'}")
        sys.exit(1 if failed else 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
