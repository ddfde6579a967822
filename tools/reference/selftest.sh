#!/usr/bin/env bash
# Self-test of the Python reference implementation (analyze_ref.py) against the
# hand-computed expected outputs under examples/.  Usage: bash tools/reference/selftest.sh
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REF="$HERE/analyze_ref.py"
PY="${PYTHON:-python3}"
# ANALYZE_CMD runs the same cases against another implementation (e.g. the built binary).
if [ -n "${ANALYZE_CMD:-}" ]; then read -r -a RUN <<< "$ANALYZE_CMD"; else RUN=("$PY" "$REF"); fi
# The cases run in examples/: a command given by a relative path (.build/release/analyze)
# is made absolute first, from where the script was started.
if [[ "${RUN[0]}" == */* && "${RUN[0]}" != /* ]]; then RUN[0]="$PWD/${RUN[0]}"; fi
cd "$HERE/examples" || exit 1
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }

# case NAME EXPECTED_DIR STDIN_FILE ARGS... : run, expect exit 0 and identical CSVs
case_out() {
  local name="$1" exp="$2" stdin="$3"; shift 3
  rm -rf "$TMP/out"
  if [ -n "$stdin" ]; then "${RUN[@]}" --quiet --out "$TMP/out" "$@" < "$stdin"; else "${RUN[@]}" --quiet --out "$TMP/out" "$@" < /dev/null; fi
  local rc=$?
  if [ $rc -ne 0 ]; then bad "$name: exit $rc"; return; fi
  if diff -r "$exp" "$TMP/out" > "$TMP/diff" 2>&1; then ok; else bad "$name: output differs"; cat "$TMP/diff"; fi
}
# case_rc NAME WANT_RC ARGS... : run into a fresh out dir, expect exit code
case_rc() {
  local name="$1" want="$2"; shift 2
  rm -rf "$TMP/rc"
  "${RUN[@]}" --quiet --out "$TMP/rc" "$@" < /dev/null 2> "$TMP/err"
  local rc=$?
  if [ $rc -ne "$want" ]; then bad "$name: exit $rc, want $want ($(cat "$TMP/err"))"; return; fi
  if [ "$want" -ne 0 ] && [ -e "$TMP/rc" ]; then bad "$name: output written on failure"; return; fi
  ok
}

case_out basic-utc      basic/expected-utc      "" basic/events.ndjson
case_out basic-tokyo    basic/expected-tokyo    "" --timezone Asia/Tokyo basic/events.ndjson
case_out basic-minus10  basic/expected-minus10  "" basic/events.ndjson --timezone=-10:00
case_out basic-twice    basic/expected-twice    "" basic/events.ndjson basic/events.ndjson
case_out rejects        rejects/expected        "" --max-line-bytes 300 rejects/mixed.ndjson
case_out rejects-rows3  rejects/expected-rows3  "" --max-line-bytes=300 --max-reject-rows 3 rejects/mixed.ndjson
case_out gzip-dir       gzip/expected-dir       "" gzip/dir
case_out gzip-dir-slash gzip/expected-dir-slash "" gzip/dir/
case_out gzip-stdin     gzip/expected-stdin     gzip/fake.gz gzip/realgz.ndjson -
case_out dups           dups/expected           "" dups/events.ndjson
case_out share          share/expected          "" share/events.ndjson

# line exactly at the limit is fine, one byte less makes it line_too_long
rm -rf "$TMP/out"; "${RUN[@]}" --quiet --out "$TMP/out" --max-line-bytes 299 rejects/mixed.ndjson
grep -qx 'rejected_line_too_long,2' "$TMP/out/quality.csv" && ok || bad "max-line-bytes 299"

# gzip damage -> exit 2, nothing written
for f in gzip/bad/*; do case_rc "damaged $f" 2 "$f"; done
# exit 2 / 3 leave an earlier run's CSVs exactly as they were
rm -rf "$TMP/keep"; "${RUN[@]}" --quiet --out "$TMP/keep" basic/events.ndjson
cp -r "$TMP/keep" "$TMP/keep.orig"
"${RUN[@]}" --quiet --out "$TMP/keep" basic/events.ndjson gzip/bad/truncated.gz 2>/dev/null; rc=$?
[ $rc -eq 2 ] && diff -r "$TMP/keep.orig" "$TMP/keep" >/dev/null && ok || bad "exit 2 must leave old outputs (rc=$rc)"
"${RUN[@]}" --quiet --out "$TMP/keep" --max-reject-rate 0.1 rejects/mixed.ndjson 2>/dev/null; rc=$?
[ $rc -eq 3 ] && diff -r "$TMP/keep.orig" "$TMP/keep" >/dev/null && ok || bad "exit 3 must leave old outputs (rc=$rc)"

# reject rate: 1 of 4 lines rejected; strictly greater fails
case_rc rate-equal      0 --max-reject-rate 0.25 cli/quarter.ndjson
case_rc rate-below      3 --max-reject-rate 0.2499 cli/quarter.ndjson
case_rc rate-zero       3 --max-reject-rate=0 cli/quarter.ndjson
case_rc rate-zero-lines 0 --max-reject-rate 0 cli/blank.ndjson
# Exponents far out of range compare like any rate (the reference once built 10**N for them).
case_rc rate-tiny       3 --max-reject-rate 1e-99999999999 cli/quarter.ndjson
case_rc rate-huge       0 --max-reject-rate 1e99999999999 cli/quarter.ndjson
rm -rf "$TMP/out"; "${RUN[@]}" --quiet --out "$TMP/out" cli/blank.ndjson
grep -qx 'lines,0' "$TMP/out/quality.csv" && grep -qx 'first_event,' "$TMP/out/quality.csv" \
  && [ "$(cat "$TMP/out/installs.csv")" = "date,by_device_id,by_customer_user_id,by_profile_id" ] && ok || bad "blank-only file"

# usage errors -> exit 1, nothing written
case_rc no-path          1
case_rc unknown-flag     1 --bogus cli/quarter.ndjson
case_rc threads-0        1 --threads 0 cli/quarter.ndjson
case_rc line-bytes-0     1 --max-line-bytes 0 cli/quarter.ndjson
case_rc negative-rows    1 --max-reject-rows -1 cli/quarter.ndjson
case_rc negative-rate    1 --max-reject-rate -0.5 cli/quarter.ndjson
case_rc malformed-rate   1 --max-reject-rate abc cli/quarter.ndjson
case_rc tz-case          1 --timezone asia/tokyo cli/quarter.ndjson
case_rc tz-offset-form   1 --timezone +0900 cli/quarter.ndjson
case_rc missing-value    1 cli/quarter.ndjson --out
# `--out $OUT --quiet` with OUT unset: a missing value, not a report in ./--quiet.
case_rc flag-as-value    1 --out --quiet cli/quarter.ndjson
if [ -e ./--quiet ]; then bad "flag-as-value: wrote ./--quiet"; rm -rf -- ./--quiet; fi
case_rc stdin-twice      1 - -
case_rc after-dashdash   2 -- --not-a-flag
case_rc options-after    0 cli/quarter.ndjson --threads 3 --timezone +09:00
case_rc missing-file     2 cli/does-not-exist.ndjson

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
