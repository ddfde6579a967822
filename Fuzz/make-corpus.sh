#!/usr/bin/env bash
# Rebuilds the committed seed corpus of Fuzz/corpus/ (deterministic).
#
#   Fuzz/make-corpus.sh [GENERATE_EVENTS_BINARY] [ANALYZE_BINARY]
#
# parser/   one line per file: every line of tools/reference/examples/**/*.ndjson and
#           *.jsonl, and from `generate-events --noise 0.2` output up to 12 lines per
#           reject reason (classified by analyze's rejects.csv) and per event type.
# gzip/     2 control bytes (see harnesses/GzipFuzzer.swift) + a stored file: the
#           example gzip files (good and bad), generated multi-member exports,
#           zero padding, plain text; and structured-mode seeds (control byte odd).
# pipeline/ 1 control byte (see harnesses/PipelineFuzzer.swift) + a small export.
#
# Needs python3. Without arguments it builds the two products with SwiftPM.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
if [ $# -ge 2 ]; then
    GENERATE="$1"; ANALYZE="$2"
else
    scratch="${SCRATCH:-Fuzz/.build/spm}"
    swift build --scratch-path "$scratch" --product generate-events >/dev/null
    swift build --scratch-path "$scratch" --product analyze >/dev/null
    bin="$(swift build --scratch-path "$scratch" --show-bin-path)"
    GENERATE="$bin/generate-events"; ANALYZE="$bin/analyze"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$GENERATE" --events 3000 --seed 20261128 --days 5 --noise 0.2 --out "$work/noisy.ndjson"
"$GENERATE" --events 3000 --seed 11 --days 3 --noise 0.2 --crlf --bom --out "$work/noisy-crlf.ndjson"
"$GENERATE" --events 30 --seed 5 --noise 0.2 --members 3 --out "$work/small-3members.ndjson.gz"
"$GENERATE" --events 12 --seed 6 --noise 0.3 --level 9 --gzip --out "$work/small-level9.ndjson.gz"
"$GENERATE" --events 12 --seed 8 --crlf --bom --level 0 --gzip --out "$work/small-stored.ndjson.gz"
"$GENERATE" --events 40 --seed 9 --noise 0.5 --out "$work/small-noisy.ndjson"
"$ANALYZE" --quiet --max-reject-rows 1000000 --out "$work/out" "$work/noisy.ndjson"

rm -rf Fuzz/corpus
mkdir -p Fuzz/corpus/parser Fuzz/corpus/gzip Fuzz/corpus/pipeline
python3 - "$work" <<'PY'
import csv, glob, gzip, hashlib, json, os, sys

work = sys.argv[1]
root = "Fuzz/corpus"
seen = set()

def put(kind, label, data):
    digest = hashlib.sha1(kind.encode() + data).hexdigest()
    if digest in seen:
        return
    seen.add(digest)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:60]
    with open(f"{root}/{kind}/{safe}-{digest[:10]}", "wb") as f:
        f.write(data)

def lines_of(data):
    return [l for l in data.split(b"\n") if l.strip(b" \t\r")]

# parser: every hand-written example line (they are the SPEC's edge cases)
examples = sorted(glob.glob("tools/reference/examples/**/*.ndjson", recursive=True)
                  + glob.glob("tools/reference/examples/**/*.jsonl", recursive=True))
for path in examples:
    if not os.path.isfile(path):
        continue
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:
            continue  # a damaged example: a gzip seed below, not a line
    name = os.path.relpath(path, "tools/reference/examples").replace("/", "_")
    for n, line in enumerate(lines_of(data), 1):
        if len(line) <= 8192:
            put("parser", f"example-{name}-{n}", line)

# parser: generated lines, classified by analyze (reject reason) or event type
noisy = open(f"{work}/noisy.ndjson", "rb").read().split(b"\n")
reasons = {}
with open(f"{work}/out/rejects.csv", newline="") as f:
    for row in csv.DictReader(f):
        reasons[int(row["line"])] = row["reason"]
buckets = {}
for number, line in enumerate(noisy, 1):
    if not line.strip(b" \t\r") or len(line) > 8192:
        continue
    if number in reasons:
        label = "reject-" + reasons[number]
    else:
        try:
            label = "event-" + str(json.loads(line).get("event_type"))
        except Exception:
            label = "event-unparsed"
    buckets.setdefault(label, []).append(line)
for label, bucket in sorted(buckets.items()):
    step = max(1, len(bucket) // 12)
    for line in bucket[::step][:12]:
        put("parser", "generated-" + label, line)
crlf = open(f"{work}/noisy-crlf.ndjson", "rb").read().split(b"\n")
for line in crlf[:5]:
    put("parser", "generated-crlf-bom", line)

# gzip, raw mode (control byte even; the second byte picks the read size)
stored = {}
for path in sorted(glob.glob("tools/reference/examples/gzip/**/*", recursive=True)):
    if os.path.isfile(path) and os.path.getsize(path) < 4096:
        stored["example-" + os.path.relpath(path, "tools/reference/examples/gzip").replace("/", "_")] = open(path, "rb").read()
for name in ["small-3members.ndjson.gz", "small-level9.ndjson.gz", "small-stored.ndjson.gz"]:
    stored["generated-" + name] = open(f"{work}/{name}", "rb").read()
members = stored["generated-small-3members.ndjson.gz"]
stored["zero-padding"] = members + b"\0" * 37
stored["zero-padding-then-garbage"] = members + b"\0" * 5 + b"x"
stored["garbage-after-member"] = members + b"PK"
stored["lone-1f-after-member"] = members + b"\x1f"
stored["two-magic-bytes-only"] = b"\x1f\x8b"
stored["empty"] = b""
stored["plain-text"] = open(f"{work}/small-noisy.ndjson", "rb").read()[:1500]
stored["bom-plain"] = b"\xef\xbb\xbf" + open(f"{work}/small-noisy.ndjson", "rb").read()[:300]
stored["empty-member"] = gzip.compress(b"", mtime=0)
stored["empty-member-twice"] = gzip.compress(b"", mtime=0) * 2
good = stored["generated-small-level9.ndjson.gz"]
stored["bad-crc"] = good[:-8] + bytes([good[-8] ^ 0xFF]) + good[-7:]
stored["bad-isize"] = good[:-4] + bytes([good[-4] ^ 0x01]) + good[-3:]
for cut in (3, 10, len(good) // 2, len(good) - 8, len(good) - 1):
    stored[f"truncated-at-{cut}"] = good[:cut]
for i, (name, data) in enumerate(sorted(stored.items())):
    put("gzip", "raw-" + name, bytes([2 * (i % 64), i % 8]) + data)
# gzip, structured mode (control byte odd): the body is text the harness compresses
texts = {
    "generated": open(f"{work}/small-noisy.ndjson", "rb").read()[:2000],
    "crlf-bom": open(f"{work}/noisy-crlf.ndjson", "rb").read()[:1000],
    "utf8": "{\"event_id\":\"é\",\"x\":\"日本語\"}\n".encode(),
    "empty": b"",
}
for i, (name, text) in enumerate(sorted(texts.items())):
    put("gzip", "members-" + name, bytes([2 * i + 1 + 16 * i, 7 - i]) + text)

# pipeline: small exports, each with a few control bytes
exports = {os.path.relpath(p, "tools/reference/examples").replace("/", "_"): open(p, "rb").read()
           for p in examples if os.path.isfile(p) and os.path.getsize(p) < 12000}
exports["generated-noisy"] = open(f"{work}/small-noisy.ndjson", "rb").read()
exports["generated-crlf-bom"] = b"".join(l + b"\n" for l in crlf[:40])
for i, (name, data) in enumerate(sorted(exports.items())):
    for control in (0x00, 0x13 + 2 * i, 0xC6):
        put("pipeline", f"{name}-{control:02x}", bytes([control & 0xFF]) + data)
PY
echo "corpus: parser $(ls Fuzz/corpus/parser | wc -l), gzip $(ls Fuzz/corpus/gzip | wc -l), pipeline $(ls Fuzz/corpus/pipeline | wc -l) files, $(du -sh Fuzz/corpus | cut -f1)"
