#!/usr/bin/env bash
# Rebuilds the sample export and its golden CSVs. The goldens are written by analyze
# and must equal, byte for byte, those of the independent reference implementation.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product generate-events >/dev/null
swift build -c release --product analyze >/dev/null
.build/release/generate-events --events 4000 --seed 4 --days 14 --noise 0.03 --crlf \
    --gzip --members 3 --out sample-data/events.ndjson.gz
rm -rf sample-data/expected /tmp/analyze-sample-reference
.build/release/analyze --quiet --out sample-data/expected sample-data/
python3 tools/reference/analyze_ref.py --quiet --out /tmp/analyze-sample-reference sample-data/
diff -r sample-data/expected /tmp/analyze-sample-reference
echo "sample-data regenerated; reference agrees"
