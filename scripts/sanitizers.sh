#!/usr/bin/env bash
# Runs tests under ThreadSanitizer and AddressSanitizer (with LeakSanitizer).
#
#   scripts/sanitizers.sh [thread|address|all] [FILTER]
#
# thread   swift test --sanitize=thread  on FILTER (default: the whole suite, ~55 min on
#          2 cores once built; the end-to-end tests then run an instrumented `analyze`,
#          widen their memory bounds and skip the RLIMIT_FSIZE test, see
#          docs/reliability.md). For a faster check of the in-process pipeline:
#          scripts/sanitizers.sh thread 'DeterminismTests|InputTests'.
# address  swift test --sanitize=address on FILTER (default: the whole suite; the
#          end-to-end tests then run an instrumented `analyze` binary too).
# all      both (the default).
#
# Each sanitizer builds into its own scratch path (.build/sanitize-NAME), so normal
# builds are not invalidated. Reports are collected from the test log; the script
# exits 1 when a sanitizer reported anything or a test failed, and prints the
# first report of each kind. Logs: .build/sanitize-NAME.log.
#
# Environment: SANITIZER_SCRATCH (a directory for the scratch paths instead of
# .build), SWIFT_TEST_FLAGS (extra flags for swift test, e.g. "-c release").
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

which="${1:-all}"
filter="${2:-}"
scratch_root="${SANITIZER_SCRATCH:-.build}"
mkdir -p "$scratch_root"
# Swift's crash backtracer would run inside the instrumented process; keep reports plain.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
# Keep going after the first report, so one run lists every race; exit 66 at the end.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1 history_size=4}"
# The quarantine of freed memory (256 MB by default) counts toward a process's RSS;
# FailureMatrixTests measure the binary's peak RSS (a 200 MB line must stay far
# below 100 MB), so keep it small. The options reach the `analyze` and
# `generate-events` children of the end-to-end tests too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1 halt_on_error=1 detect_stack_use_after_return=1 quarantine_size_mb=16}"
# generate-events (a test tool, not the engine) never frees its per-person text
# buffers (EventGenerator/Engine.swift, prepareText); without this LeakSanitizer
# fails every test that generates data. Engine leaks are still reported.
suppressions="$(mktemp)"
trap 'rm -f "$suppressions"' EXIT
echo "leak:EventGenerator" > "$suppressions"
# exitcode=0: a leak report does not fail the process; the reports are classified
# below instead. The test runner itself always "leaks" (swift-corelibs-xctest keeps
# every test-case instance, and everything they hold, alive until exit), so its
# report is informational; reports of other processes — the `analyze` children of
# the end-to-end tests — are the engine's and fail the run.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$suppressions print_suppressions=0 exitcode=0}"

status=0
run() {  # run SANITIZER FILTER
    local sanitizer="$1" tests="$2"
    local log="$scratch_root/sanitize-$sanitizer.log"
    local args=(--sanitize="$sanitizer" --scratch-path "$scratch_root/sanitize-$sanitizer")
    [ -n "$tests" ] && args+=(--filter "$tests")
    echo "sanitizers: swift test ${args[*]} ${SWIFT_TEST_FLAGS:-}"
    local started=$SECONDS
    # shellcheck disable=SC2086
    swift test "${args[@]}" ${SWIFT_TEST_FLAGS:-} > "$log" 2>&1
    local rc=$?
    local races leaks asan executed
    races=$(grep -c "WARNING: ThreadSanitizer" "$log")
    asan=$(grep -c "ERROR: AddressSanitizer" "$log")
    # Leak reports: one block per process, up to its SUMMARY line.
    local runner_leaks
    runner_leaks=$(awk '/ERROR: LeakSanitizer/ {inside=1; xc=0} inside && /XCTest/ {xc=1}
        inside && /^SUMMARY: AddressSanitizer/ {inside=0; if (xc) n++} END {print n+0}' "$log")
    leaks=$(( $(grep -c "ERROR: LeakSanitizer" "$log") - runner_leaks ))
    executed="$(grep -E "Executed [0-9]+ tests" "$log" | tail -1 | sed 's/^[[:space:]]*//')"
    echo "sanitizers: $sanitizer: exit $rc in $((SECONDS - started)) s; ${executed:-no test summary}"
    echo "sanitizers: $sanitizer: $races ThreadSanitizer warning(s), $asan AddressSanitizer error(s), $leaks leak report(s)" \
        "(+ $runner_leaks from the XCTest runner itself, not counted)"
    if [ "$races" -gt 0 ]; then
        grep -A 24 -m 1 "WARNING: ThreadSanitizer" "$log"
        grep "SUMMARY: ThreadSanitizer" "$log" | sort | uniq -c | sort -rn | head -20
    fi
    if [ "$asan" -gt 0 ]; then
        grep -A 30 -m 1 "ERROR: AddressSanitizer" "$log"
    fi
    if [ "$leaks" -gt 0 ]; then
        awk '/ERROR: LeakSanitizer/ {inside=1; xc=0; block=""} inside {block = block $0 "\n"} inside && /XCTest/ {xc=1}
            inside && /^SUMMARY: AddressSanitizer/ {inside=0; if (!xc) {printf "%s", block; exit}}' "$log" | head -40
    fi
    if [ $rc -ne 0 ]; then
        grep -E "error: .*(Test|XCT)|failed \(" "$log" | head -20
    fi
    if [ $rc -ne 0 ] || [ "$races" -gt 0 ] || [ "$asan" -gt 0 ] || [ "$leaks" -gt 0 ]; then status=1; fi
    echo "sanitizers: full log: $log"
}

case "$which" in
    thread) run thread "$filter" ;;
    address) run address "$filter" ;;
    all)
        run thread "$filter"
        run address "$filter"
        ;;
    *) echo "usage: scripts/sanitizers.sh [thread|address|all] [FILTER]"; exit 2 ;;
esac
exit $status
