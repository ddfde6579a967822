#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs each for a while.
#
#   Fuzz/run.sh [SECONDS] [HARNESS...]
#
# SECONDS   per harness (default 60); 0 runs each harness once over the committed seeds
#           and regression inputs only and stops (what .ci/run does: the build and the
#           known inputs checked on every change). HARNESS: parser, gzip, pipeline
#           (default all).
#
# The harnesses (Fuzz/harnesses/*.swift) are compiled together with every file of
# Sources/AnalyzeKit into one module named AnalyzeKit, so internal types
# (EventParser, DecodedTextSource, ...) are visible, with
#   swiftc -sanitize=fuzzer,address -parse-as-library -module-name AnalyzeKit \
#          -swift-version 6 -O -g -I Sources/CZlib -lz ...
# (-I Sources/CZlib finds the CZlib module map, likewise for every other C module of
# Sources/; a C target's .c files are compiled with the toolchain's clang and linked
# in; zlib1g-dev must be installed; -D ANALYZE_ISAL -lisal when ISA-L is, as
# Package.swift chooses the inflater). The sources are copied to Fuzz/.build/src
# first, so edits made while it builds do not break the build; the binary is rebuilt
# only when a source changed.
#
# Each harness starts from the committed seeds (Fuzz/corpus/HARNESS, never written
# to, rebuilt by Fuzz/make-corpus.sh), the inputs of bugs found so far
# (Fuzz/regressions/HARNESS: they fail until the bug is fixed, so while one is open
# add FUZZ_FLAGS="-fork=1 -ignore_crashes=1" to fuzz past it) and what earlier runs
# found (Fuzz/.build/corpus/HARNESS, where new inputs go).
# A crash or invariant failure leaves its input in Fuzz/.build/artifacts/HARNESS/ and
# makes the script exit 1; reproduce with
#   Fuzz/.build/fuzz-HARNESS Fuzz/.build/artifacts/HARNESS/crash-...
# then turn it into a regression test (in
# Tests/EndToEndTests/FailureMatrixTests+FuzzRegressions.swift or
# Tests/AnalyzeKitTests) before fixing it.
#
# Environment: FUZZ_SOURCES (an AnalyzeKit source folder to fuzz instead of
# Sources/AnalyzeKit, e.g. a copy with a known bug patched out, to look past it),
# FUZZ_SANITIZERS (default "fuzzer,address"; e.g. "fuzzer" for speed),
# FUZZ_FLAGS (extra libFuzzer flags), FUZZ_FORCE_BUILD=1 (rebuild anyway),
# ANALYZE_INFLATER=builtin or =zlib (fuzz that backend where ISA-L is installed; the
# gzip harness compares the engine's decoding with zlib's).
#
# Example: Fuzz/run.sh 600 parser   (ten minutes on the line parser)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parser gzip pipeline)
sanitizers="${FUZZ_SANITIZERS:-fuzzer,address}"
# Swift's own crash backtracer would run inside the ASan process and muddle reports.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

build=Fuzz/.build
mkdir -p "$build"

# 1. Snapshot the sources and build when they changed. Every C module of Sources/
#    (a folder with a module.modulemap: CZlib, ...) goes on the include path; ISA-L
#    is used as Package.swift uses it: when its header is installed, unless
#    ANALYZE_INFLATER=builtin or =zlib.
rm -rf "$build/src.new"
mkdir -p "$build/src.new/modules"
cp -R "${FUZZ_SOURCES:-Sources/AnalyzeKit}" "$build/src.new/AnalyzeKit"
for map in Sources/*/module.modulemap; do cp -R "$(dirname "$map")" "$build/src.new/modules/"; done
# C targets with sources (CInterrupt, CHashKey): SwiftPM makes their module maps from
# include/; here each gets one naming its headers, and its .c files are compiled below.
shopt -s nullglob
for include in Sources/*/include; do
    name="$(basename "$(dirname "$include")")"
    mkdir -p "$build/src.new/modules/$name" "$build/src.new/c/$name"
    cp "$include"/*.h "$build/src.new/modules/$name/"
    find "$(dirname "$include")" -name '*.c' -exec cp {} "$build/src.new/c/$name/" \;
    {
        echo "module $name {"
        for header in "$include"/*.h; do echo "    header \"$(basename "$header")\""; done
        echo "    export *"
        echo "}"
    } > "$build/src.new/modules/$name/module.modulemap"
done
cp -R Fuzz/harnesses "$build/src.new/harnesses"
flags=(-lz)
case "${ANALYZE_INFLATER:-}" in
zlib) flags+=(-D ANALYZE_ZLIB_INFLATE) ;;
builtin) ;;
*) [ -f /usr/include/isa-l/igzip_lib.h ] && flags+=(-D ANALYZE_ISAL -lisal) ;;
esac
stamp="$( (cd "$build/src.new" && find . -type f -print0 | sort -z | xargs -0 sha1sum; echo "$sanitizers ${flags[*]}") | sha1sum | cut -d' ' -f1)"
if [ "${FUZZ_FORCE_BUILD:-0}" = 1 ] || [ ! -x "$build/analyze-fuzz" ] || [ "$(cat "$build/stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$build/src"
    mv "$build/src.new" "$build/src"
    echo "fuzz: building $build/analyze-fuzz (-sanitize=$sanitizers ${flags[*]}) ..."
    mapfile -t sources < <(find "$build/src/AnalyzeKit" "$build/src/harnesses" -name '*.swift' | sort)
    includes=()
    for module in "$build"/src/modules/*/; do includes+=(-I "${module%/}"); done
    linker=()
    command -v ld.lld >/dev/null 2>&1 && linker=(-use-ld=lld)
    objects=()
    for source in "$build"/src/c/*/*.c; do
        module="$(basename "$(dirname "$source")")"
        object="$build/src/c/$module/$(basename "$source" .c).o"
        if ! clang -c -O2 -g -I "$build/src/modules/$module" "$source" -o "$object" 2> "$build/build.log"; then
            tail -40 "$build/build.log"
            echo "fuzz: build failed (full log: $build/build.log)"
            exit 2
        fi
        objects+=("$object")
    done
    if ! swiftc -sanitize="$sanitizers" -parse-as-library -module-name AnalyzeKit -swift-version 6 \
            -O -g "${includes[@]}" "${flags[@]}" "${linker[@]}" \
            "${sources[@]}" "${objects[@]}" -o "$build/analyze-fuzz" 2> "$build/build.log"; then
        grep -v "Cannot export local symbol" "$build/build.log" | tail -40
        echo "fuzz: build failed (full log: $build/build.log)"
        exit 2
    fi
    echo "$stamp" > "$build/stamp"
else
    rm -rf "$build/src.new"
    echo "fuzz: $build/analyze-fuzz is up to date"
fi
for target in parser gzip pipeline; do ln -sf analyze-fuzz "$build/fuzz-$target"; done

# 2. Run each harness.
declare -A max_len=([parser]=8192 [gzip]=16384 [pipeline]=4096)
# Dispatch keeps per-thread allocations alive across inputs, which libFuzzer's
# per-input leak check mistakes for leaks (and re-running every input under LSan
# makes the harness ~7x slower): no leak detection for the pipeline harness.
declare -A extra=([parser]="" [gzip]="" [pipeline]="-detect_leaks=0")
status=0
summary=()
for target in "${targets[@]}"; do
    if [ -z "${max_len[$target]:-}" ]; then echo "fuzz: unknown harness '$target'"; exit 2; fi
    corpus="$build/corpus/$target"
    artifacts="$build/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    dict=()
    [ "$target" = parser ] && dict=(-dict=Fuzz/json.dict)
    regressions=()
    [ -d "Fuzz/regressions/$target" ] && regressions=("Fuzz/regressions/$target")
    log="$build/$target.log"
    started="$build/.started-$target"
    touch "$started"
    if [ "$seconds" = 0 ]; then
        # Replaying: the committed inputs only, each run once and whole (no
        # -max_len: longer seeds would be cut to it).
        limit=(-runs=0)
        inputs=("Fuzz/corpus/$target" "${regressions[@]}")
        echo "fuzz: $target, replaying (log: $log)"
    else
        limit=(-max_total_time="$seconds" -max_len="${max_len[$target]}")
        inputs=("$corpus" "Fuzz/corpus/$target" "${regressions[@]}")
        echo "fuzz: $target for ${seconds}s (log: $log)"
    fi
    # shellcheck disable=SC2086
    "$build/fuzz-$target" "${limit[@]}" -timeout=20 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" \
        ${extra[$target]} ${FUZZ_FLAGS:-} "${inputs[@]}" > "$log" 2>&1
    rc=$?
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
    [ -z "$runs" ] && runs="$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')"
    cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')"
    crashes=$(find "$artifacts" -type f -newer "$started" \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
    if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
        status=1
        grep -E "fuzz invariant broken|ERROR: AddressSanitizer|ERROR: libFuzzer|Fatal error|SUMMARY" "$log" | head -5
        summary+=("$target: FAILED (exit $rc) after ${runs:-?} runs: $(find "$artifacts" -type f -newer "$started" | tr '\n' ' ')")
    elif [ "$seconds" = 0 ]; then
        summary+=("$target: ok, the committed inputs replayed in ${runs:-?} runs, coverage ${cov:-?} edges")
    else
        summary+=("$target: ok, ${runs:-?} runs in ${seconds}s, coverage ${cov:-?} edges, corpus $(ls "$corpus" | wc -l) + $(ls "Fuzz/corpus/$target" | wc -l) seeds")
    fi
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
