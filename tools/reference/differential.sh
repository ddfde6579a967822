#!/usr/bin/env bash
# Differential test: the analyze binary against the Python reference implementation on
# generated exports — noisy, shuffled, multi-member, split over files and a directory,
# in several time zones. Every CSV must be byte-identical.
#
# Usage: tools/reference/differential.sh [ANALYZE] [GENERATE] [ROUNDS]
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
ANALYZE="${1:-$HERE/../../.build/release/analyze}"
GENERATE="${2:-$HERE/../../.build/release/generate-events}"
ROUNDS="${3:-4}"
REF=(python3 "$HERE/analyze_ref.py")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
pass=0; fail=0

compare() {  # [STDIN=file] compare NAME ARGS... : run both implementations, diff every CSV
    local name="$1"; shift
    local input="${STDIN:-/dev/null}"
    rm -rf "$TMP/a" "$TMP/r"
    "$ANALYZE" --quiet --out "$TMP/a" "$@" < "$input"; local ra=$?
    "${REF[@]}" --quiet --out "$TMP/r" "$@" < "$input"; local rr=$?
    if [ $ra -ne $rr ]; then fail=$((fail+1)); echo "FAIL $name: exit $ra vs reference $rr"; return; fi
    if [ $ra -ne 0 ]; then pass=$((pass+1)); return; fi
    if diff -r "$TMP/a" "$TMP/r" > "$TMP/diff"; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "FAIL $name"; head -20 "$TMP/diff"
    fi
}

zones=(UTC Asia/Tokyo America/New_York +05:30 -10:00 Europe/London)
for round in $(seq 1 "$ROUNDS"); do
    seed=$((round * 7919))
    dir="$TMP/round$round"; mkdir -p "$dir/split"
    noise="0.0$((round % 9 + 1))"
    flags=(--events $((3000 + round * 1500)) --seed $seed --noise "$noise" --days $((5 + round * 3)))
    [ $((round % 2)) -eq 0 ] && flags+=(--crlf)
    [ $((round % 3)) -eq 0 ] && flags+=(--bom)
    "$GENERATE" "${flags[@]}" --out "$dir/plain.ndjson"
    "$GENERATE" "${flags[@]}" --members $((round + 1)) --out "$dir/members.ndjson.gz"
    # The same lines shuffled, split over three files in a directory (two gzipped).
    shuf --random-source=<(yes "$seed") "$dir/plain.ndjson" > "$dir/shuffled.ndjson"
    split -n l/3 -d --additional-suffix=.ndjson "$dir/shuffled.ndjson" "$dir/split/part"
    gzip "$dir/split/part00.ndjson" "$dir/split/part02.ndjson"
    zone="${zones[$((round % ${#zones[@]}))]}"
    compare "round $round plain ($zone)" --timezone "$zone" "$dir/plain.ndjson"
    compare "round $round members" "$dir/members.ndjson.gz"
    compare "round $round directory ($zone)" --timezone "$zone" "$dir/split"
    STDIN="$dir/plain.ndjson" compare "round $round files+stdin" --max-reject-rows 7 "$dir/members.ndjson.gz" - "$dir/split/part01.ndjson"
done
"$GENERATE" --events 2000 --seed 99 --huge-line --noise 0.1 --out "$TMP/huge.ndjson"
compare "huge lines" "$TMP/huge.ndjson"
compare "huge lines, small limit" --max-line-bytes 400 "$TMP/huge.ndjson"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
