#!/usr/bin/env bash
# Builds bench/work/builtin-inflate (bench/builtin_inflate.swift with the decoder's
# sources, -O) when a source changed, then runs it on FILE.
#
#   bench/builtin_inflate.sh FILE
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
sources=("$ROOT/bench/builtin_inflate.swift" "$ROOT/Sources/AnalyzeKit/Input/DeflateDecoder.swift"
         "$ROOT/Sources/AnalyzeKit/Input/HuffmanTable.swift")
binary="$ROOT/bench/work/builtin-inflate"
mkdir -p "$ROOT/bench/work"
stamp=$(cat "${sources[@]}" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
if [ ! -x "$binary" ] || [ "$(cat "$binary.stamp" 2>/dev/null)" != "$stamp" ]; then
    swiftc -O -wmo -parse-as-library -module-name BuiltInInflate "${sources[@]}" -o "$binary.tmp"
    mv "$binary.tmp" "$binary"
    echo "$stamp" > "$binary.stamp"
fi
exec "$binary" "$@"
